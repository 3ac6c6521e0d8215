// Password reset by a one-time link in a mail. The request's answer is the same whether or not the
// email has an account; the token is in the URL, so its pages send no Referer.
import { passwordForgotInput, passwordResetInput } from '../../../domain/account-input.js';
import { urlFor } from '../../context.js';
import { clientAddress, signOut } from '../../session.js';
import type { AccountPages, FormView } from './forms.js';
import { TOKEN_PAGE_REFERRER_POLICY, limited, tooMany } from './forms.js';

export function passwordResetRoutes(pages: AccountPages): void {
  const { kit } = pages;
  const { services } = kit;

  const forgotForm = pages.form('user/forgot', 'Forgot your password?', '/user/password/forgot/submit');

  kit.page('GET', '/user/password/forgot', { name: 'users.password.forgot' }, async (request, reply, state) =>
    forgotForm(request, reply, state),
  );

  kit.page(
    'POST',
    '/user/password/forgot/submit',
    { name: 'users.password.forgot.submit' },
    async (request, reply, state) =>
      pages.submit(request, reply, state, {
        schema: passwordForgotInput,
        fields: ['email'],
        form: forgotForm,
        action: async (input, again) => {
          const retryAfter = limited(
            reply,
            await services.throttle.resetAttempt(input.email, clientAddress(request)),
          );
          if (retryAfter !== null)
            return again(429, { email: [tooMany('password reset requests', retryAfter)] });
          // The mail goes out in the background.
          services.accounts.requestPasswordReset(
            input.email,
            (token) => pages.mailLink(state, `/user/password/reset/${token}`),
            pages.siteName(state),
          );
          return pages.message(
            request,
            reply,
            state,
            200,
            'Check your inbox',
            'If an account exists for that email, we have sent it a link to choose a new password.',
          );
        },
      }),
  );

  const resetForm: FormView = async (request, reply, state, data = {}) => {
    // The token is in the URL: no page resource may carry it away in a Referer.
    reply.header('referrer-policy', TOKEN_PAGE_REFERRER_POLICY);
    const token = (request.params as { token: string }).token;
    if (!(await services.accounts.resetTokenValid(token))) {
      return pages.message(
        request,
        reply,
        state,
        404,
        'Invalid link',
        'This password reset link is invalid, used or expired. Ask for a new one.',
      );
    }
    return pages.page(request, reply, state, 'user/reset', {
      title: 'Choose a new password',
      action: urlFor(state, `/user/password/reset/${token}`),
      ...data,
    });
  };

  kit.page(
    'GET',
    '/user/password/reset/:token',
    { name: 'users.password.reset' },
    async (request, reply, state) => resetForm(request, reply, state),
  );

  kit.page(
    'POST',
    '/user/password/reset/:token',
    { name: 'users.password.reset.submit' },
    async (request, reply, state) => {
      reply.header('referrer-policy', TOKEN_PAGE_REFERRER_POLICY);
      return pages.submit(request, reply, state, {
        schema: passwordResetInput,
        fields: [],
        form: resetForm,
        action: async (input) => {
          const token = (request.params as { token: string }).token;
          if (!(await services.accounts.resetPassword(token, input.password))) {
            return resetForm(request, reply, state);
          }
          // Every session of the account ended; the visitor's own cookie goes too.
          await signOut(services, request, reply);
          return reply.redirect(`${urlFor(state, '/user/login')}?reset=1`, 303);
        },
      });
    },
  );
}
