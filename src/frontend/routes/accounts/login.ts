// Log in (the form and its JSON twin) and log out. Attempts are counted per account and per address
// before the password is checked; unknown email, wrong password and disabled account get one message
// at one cost.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loginInput } from '../../../domain/people/account-input.js';
import { ValidationError } from '../../../domain/errors.js';
import { parse } from '../../../domain/schema-fields.js';
import { validationMessages } from '../../../http/validation-messages.js';
import { urlFor } from '../../context.js';
import { localizeErrors, localizeMessage } from '../../site-messages.js';
import type { FrontendState } from '../../context.js';
import { clientAddress, safeRedirect, signIn, signOut } from '../../session.js';
import type { AccountPages, Body, Errors, FormView } from './forms.js';
import { entered, limited, tooMany } from './forms.js';

const BAD_CREDENTIALS = 'These credentials do not match our records.';

type LoginOutcome =
  | { ok: true; redirect: string }
  | { ok: false; status: number; message: string; errors: Errors; retryAfter?: number };

export function loginRoutes(pages: AccountPages): void {
  const { kit } = pages;
  const { services } = kit;

  const loginForm: FormView = (request, reply, state, data = {}) => {
    const query = request.query as Body;
    return pages.page(request, reply, state, 'user/login', {
      title: state.t('login.title'),
      action: urlFor(state, '/user/login/submit'),
      ajax_action: urlFor(state, '/user/login/ajax'),
      redirect: safeRedirect(query.redirect, ''),
      notice: query.reset === '1' ? state.t('login.reset_done') : null,
      ...data,
    });
  };

  kit.page('GET', '/user/login', { name: 'users.login' }, async (request, reply, state) => {
    if (state.user) return reply.redirect(safeRedirect((request.query as Body).redirect, urlFor(state, '/')));
    return loginForm(request, reply, state);
  });

  /** The login itself, shared by the form and the JSON endpoint. */
  const attemptLogin = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
  ): Promise<LoginOutcome> => {
    const reason = await pages.refused(request);
    if (reason) return { ok: false, status: 403, message: reason, errors: {} };
    let input;
    try {
      input = parse(loginInput, request.body ?? {});
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return { ok: false, status: 422, message: 'Validation failed', errors: validationMessages(error) };
    }
    const address = clientAddress(request);
    const retryAfter = limited(reply, await services.throttle.loginAttempt(input.email, address));
    if (retryAfter !== null) {
      const text = tooMany('login attempts', retryAfter);
      return { ok: false, status: 429, message: text, errors: { email: [text] }, retryAfter };
    }
    // A dummy hash is verified for an unknown email, so every failure costs the same.
    const user = await services.authentication.password(input.email, input.password);
    if (!user)
      return { ok: false, status: 422, message: BAD_CREDENTIALS, errors: { email: [BAD_CREDENTIALS] } };
    await services.throttle.loginSucceeded(input.email, address);
    await signIn(services, request, reply, user);
    return { ok: true, redirect: safeRedirect((request.body as Body).redirect, urlFor(state, '/')) };
  };

  kit.page('POST', '/user/login/submit', { name: 'users.login.submit' }, async (request, reply, state) => {
    const outcome = await attemptLogin(request, reply, state);
    if (outcome.ok) return reply.redirect(outcome.redirect, 303);
    if (outcome.status === 403)
      return pages.message(request, reply, state, 403, state.t('error.form_refused'), outcome.message);
    reply.code(outcome.status);
    return loginForm(request, reply, state, {
      errors: outcome.errors,
      form: entered(request.body, ['email']),
      redirect: safeRedirect((request.body as Body | undefined)?.redirect, ''),
    });
  });

  kit.page('POST', '/user/login/ajax', { name: 'users.login.ajax' }, async (request, reply, state) => {
    const outcome = await attemptLogin(request, reply, state);
    reply.header('cache-control', 'private, no-store');
    if (outcome.ok) {
      return { code: 200, status: 'success', message: 'You are logged in.', redirect: outcome.redirect };
    }
    reply.code(outcome.status);
    return {
      code: outcome.status,
      status: 'fail',
      message: outcome.status === 429 ? localizeMessage(outcome.message, state.t) : outcome.message,
      // The page's script shows the field's message: in the page's locale (an English page: as it was).
      ...(outcome.status === 422 ? { errors: localizeErrors(outcome.errors, state.t) } : {}),
      ...(outcome.retryAfter !== undefined ? { retry_after: outcome.retryAfter } : {}),
    };
  });

  kit.page('POST', '/user/logout', { name: 'users.logout' }, async (request, reply, state) => {
    const reason = await pages.refused(request);
    if (reason) return pages.message(request, reply, state, 403, state.t('error.form_refused'), reason);
    await signOut(services, request, reply);
    return reply.redirect(urlFor(state, '/'), 303);
  });
}
