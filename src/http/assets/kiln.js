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
