// Registration confirmed by mail. Past the shape and username checks the answer is the same for every
// valid email, with or without an account, and for one mailed too often (the limit per email only
// stops the mail): the page never tells whether an email has an account.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { registrationInput } from '../../../domain/account-input.js';
import { urlFor } from '../../context.js';
import type { FrontendState } from '../../context.js';
import { clientAddress, signIn } from '../../session.js';
import type { AccountPages, FormView } from './forms.js';
import { TOKEN_PAGE_REFERRER_POLICY, limited, tooMany } from './forms.js';

export function registrationRoutes(pages: AccountPages): void {
  const { kit } = pages;
  const { services } = kit;

  const registerForm = pages.form('user/register', 'Register', '/user/register/submit');

  const closed = (request: FastifyRequest, reply: FastifyReply, state: FrontendState) =>
    pages.message(
      request,
      reply,
      state,
      403,
      'Registration is closed',
      'This site does not take new accounts.',
    );

  kit.page('GET', '/user/register', { name: 'users.register' }, async (request, reply, state) => {
    if (!(await services.accounts.registrationOpen())) return closed(request, reply, state);
    if (state.user) return reply.redirect(urlFor(state, '/'));
    return registerForm(request, reply, state);
  });

  kit.page(
    'POST',
    '/user/register/submit',
    { name: 'users.register.submit' },
    async (request, reply, state) =>
      pages.submit(request, reply, state, {
        schema: registrationInput,
        fields: ['name', 'email', 'username'],
        form: registerForm,
        before: async (again) => {
          if (!(await services.accounts.registrationOpen())) return closed(request, reply, state);
          const retryAfter = limited(reply, await services.throttle.registerAttempt(clientAddress(request)));
          if (retryAfter !== null) return again(429, { email: [tooMany('registrations', retryAfter)] });
          return undefined;
        },
        action: async (input) => {
          // Only what says nothing about the email: a taken username (usernames are public).
          await services.accounts.checkRegistration(input);
          if ((await services.throttle.registerEmailAttempt(input.email)).allowed) {
            await services.accounts.requestRegistration(
              input,
              {
                confirm: (token) => pages.mailLink(state, `/user/register/confirm/${token}`),
                login: pages.mailLink(state, '/user/login'),
                reset: pages.mailLink(state, '/user/password/forgot'),
              },
              pages.siteName(state),
            );
          }
          return pages.message(
            request,
            reply,
            state,
            200,
            'Check your email',
            `Check your email: we sent a link to finish creating your account to ${input.email}.`,
          );
        },
      }),
  );

  const invalidLink = (request: FastifyRequest, reply: FastifyReply, state: FrontendState) =>
    pages.message(
      request,
      reply,
      state,
      400,
      'Invalid link',
      'This link is invalid or has expired. Register again to get a new one.',
    );

  /**
   * The page a mailed link opens: a button that creates the account (a POST to the same URL). Opening
   * the link uses nothing up, so a mail scanner that follows it (GET or HEAD) cannot spend the token
   * (issue 21 #12). The token is in the URL: no page resource may carry it in a Referer.
   */
  const confirmForm: FormView = async (request, reply, state, data = {}) => {
    reply.header('referrer-policy', TOKEN_PAGE_REFERRER_POLICY);
    const token = (request.params as { token: string }).token;
    if (!(await services.accounts.registrationTokenValid(token))) return invalidLink(request, reply, state);
    return pages.page(request, reply, state, 'user/confirm', {
      title: 'Create your account',
      message: 'One more step: create your account with the details you registered.',
      button: 'Create my account',
      action: urlFor(state, `/user/register/confirm/${token}`),
      ...data,
    });
  };

  kit.page(
    'GET',
    '/user/register/confirm/:token',
    { name: 'users.register.confirm' },
    async (request, reply, state) => {
      if (!(await services.accounts.registrationOpen())) return closed(request, reply, state);
      return confirmForm(request, reply, state);
    },
  );

  kit.page(
    'POST',
    '/user/register/confirm/:token',
    { name: 'users.register.confirm.submit' },
    async (request, reply, state) => {
      reply.header('referrer-policy', TOKEN_PAGE_REFERRER_POLICY);
      if (!(await services.accounts.registrationOpen())) return closed(request, reply, state);
      return pages.submit(request, reply, state, {
        schema: z.object({}),
        fields: [],
        form: confirmForm,
        action: async () => {
          const token = (request.params as { token: string }).token;
          const user = await services.accounts.confirmRegistration(token);
          if (!user) return invalidLink(request, reply, state);
          await signIn(services, request, reply, user);
          return reply.redirect(urlFor(state, '/user/profile?welcome=1'), 303);
        },
      });
    },
  );
}
