// Registration confirmed by mail. Past the shape and username checks the answer is the same for every
// valid email, with or without an account, and for one mailed too often (the limit per email only
// stops the mail): the page never tells whether an email has an account.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { registrationInput } from '../../../domain/people/account-input.js';
import { RegistrationClosedError } from '../../../domain/people/accounts.js';
import { siteActor, urlFor } from '../../context.js';
import type { FrontendState } from '../../context.js';
import { clientAddress, signIn } from '../../session.js';
import type { AccountPages } from './forms.js';
import { limited, tooMany } from './forms.js';

export function registrationRoutes(pages: AccountPages): void {
  const { kit } = pages;
  const { services } = kit;

  const registerForm = pages.form('user/register', 'register.title', '/user/register/submit');

  const closed = (request: FastifyRequest, reply: FastifyReply, state: FrontendState) =>
    pages.message(
      request,
      reply,
      state,
      403,
      state.t('register.closed.title'),
      state.t('register.closed.text'),
    );

  /**
   * Runs `work`, answering the closed page when the operation says registration is closed (the rule is
   * the operations'; the pages ask it first too, to refuse before the rate limit and the form).
   */
  const unlessClosed = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    work: () => Promise<unknown>,
  ): Promise<unknown> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof RegistrationClosedError) return closed(request, reply, state);
      throw error;
    }
  };
  const gateOpen = (request: FastifyRequest, reply: FastifyReply, state: FrontendState) =>
    unlessClosed(request, reply, state, async () => {
      await services.accounts.requireRegistrationOpen();
      return undefined;
    });

  kit.page('GET', '/user/register', { name: 'users.register' }, async (request, reply, state) => {
    const refused = await gateOpen(request, reply, state);
    if (refused !== undefined) return refused;
    if (state.user) return reply.redirect(urlFor(state, '/'));
    return registerForm(request, reply, state);
  });

  pages.formPost(
    '/user/register/submit',
    'users.register.submit',
    registrationInput,
    (request, reply, state) => ({
      fields: ['name', 'email', 'username'],
      form: registerForm,
      before: async (again) => {
        const refused = await gateOpen(request, reply, state);
        if (refused !== undefined) return refused;
        const retryAfter = limited(reply, await services.throttle.registerAttempt(clientAddress(request)));
        if (retryAfter !== null) return again(429, { email: [tooMany('registrations', retryAfter)] });
        return undefined;
      },
      action: (input) =>
        unlessClosed(request, reply, state, async () => {
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
              pages.mailSite(state),
            );
          }
          return pages.mailSent(request, reply, state, 'register.sent', { email: input.email });
        }),
    }),
  );

  // The mailed link: a page with one button that creates the account (issue 21 #12: opening the
  // link, as a mail scanner does, uses nothing up).
  pages.tokenLink({
    path: '/user/register/confirm',
    name: 'users.register.confirm',
    template: 'user/confirm',
    words: {
      title: 'register.finish.title',
      message: 'register.finish.text',
      button: 'register.finish.button',
    },
    valid: (token) => services.accounts.registrationTokenValid(token),
    dead: { status: 400, key: 'register.dead' },
    gate: gateOpen,
    schema: z.object({}),
    action: async (token, _input, request, reply, state) => {
      let user;
      try {
        user = await services.accounts.confirmRegistration(
          token,
          state.website.id,
          siteActor(request, state).origin,
        );
      } catch (error) {
        if (error instanceof RegistrationClosedError) return closed(request, reply, state);
        throw error;
      }
      if (!user) {
        return pages.deadLink(request, reply, state, { status: 400, key: 'register.dead' });
      }
      await signIn(services, request, reply, user);
      return reply.redirect(urlFor(state, '/user/profile?welcome=1'), 303);
    },
  });
}
