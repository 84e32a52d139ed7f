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
// A pull's mergeability, when the page was drawn before it was known: asked for, then shown
// (and the merge button disabled on a conflict). Without this file the page links a reload.
const mergeability = document.querySelector('[data-mergeability]');
if (mergeability) {
  const url = mergeability.getAttribute('data-mergeability') ?? '';
  const show = (answer) => {
    const text = mergeability.querySelector('[data-mergeability-text]');
    if (!text) return;
    mergeability.querySelector('[data-mergeability-reload]')?.remove();
    if (answer.state === 'clean') {
      text.textContent = 'This branch has no conflicts with the base branch.';
      mergeability.classList.add('color-fg-success');
    } else if (answer.state === 'conflict') {
      text.textContent = 'This branch has conflicts that must be resolved:';
      mergeability.classList.add('color-fg-danger');
      const list = document.createElement('ul');
      list.className = 'ml-4 mt-1';
      for (const file of answer.files ?? []) {
        const item = document.createElement('li');
        const code = document.createElement('code');
        code.textContent = file;
        item.append(code);
        list.append(item);
      }
      mergeability.append(list);
      for (const button of document.querySelectorAll('[data-merge-button]')) button.disabled = true;
    } else {
      text.textContent = 'Whether this can be merged is not known; merging will tell.';
    }
  };
  fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
    .then((response) => (response.ok ? response.json() : { state: 'unknown' }))
    .then(show, () => show({ state: 'unknown' }));
}
