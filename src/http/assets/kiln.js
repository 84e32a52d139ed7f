// Progressive enhancement only: every page works without this file.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const text = button.getAttribute('data-copy') ?? '';
  navigator.clipboard?.writeText(text).then(() => {
    const label = button.getAttribute('aria-label');
    button.setAttribute('aria-label', 'Copied!');
    setTimeout(() => button.setAttribute('aria-label', label ?? 'Copy'), 1500);
  });
});

// A destructive form names its question in data-confirm. Confirming here adds the field the
// server asks for; without this script the server answers with its own confirmation page.
document.addEventListener('submit', (event) => {
  const form = event.target instanceof HTMLFormElement ? event.target : null;
  const question = form?.getAttribute('data-confirm');
  if (!form || !question || form.querySelector('input[name="confirm"]')) return;
  if (!window.confirm(question)) {
    event.preventDefault();
    return;
  }
  const confirmed = document.createElement('input');
  confirmed.type = 'hidden';
  confirmed.name = 'confirm';
  confirmed.value = 'yes';
  form.append(confirmed);
});
