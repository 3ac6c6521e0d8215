/* global document, window, fetch, FormData, URLSearchParams */
// Logs in without a page reload through /user/login/ajax (JSON); without JavaScript the form posts
// to /user/login/submit and works the same.
document.addEventListener('DOMContentLoaded', () => {
  const form = document.querySelector('form[data-login-ajax]');
  const message = document.querySelector('[data-login-message]');
  if (!form || !message || !window.fetch) return;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = new URLSearchParams(new FormData(form));
    try {
      const response = await fetch(form.dataset.loginAjax, {
        method: 'POST',
        body,
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      const answer = await response.json();
      if (answer.status === 'success') {
        window.location.assign(answer.redirect);
        return;
      }
      const errors = answer.errors || {};
      message.textContent = (errors.email || errors.password || [answer.message])[0];
      message.hidden = false;
      // The message is the email field's: tie it to the field, as the page without JavaScript does.
      const email = form.querySelector('#email');
      if (email) {
        email.setAttribute('aria-invalid', 'true');
        email.setAttribute('aria-describedby', message.id);
      }
    } catch {
      form.submit();
    }
  });
});
