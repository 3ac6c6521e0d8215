// The signed-in visitor's own profile (name, public username) and settings (email, password). A GET
// of an update path goes back to its form; a POST is saved and answered with a redirect to the form
// with `?saved=1`, or the form again with its errors.
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { profileInput, settingsInput } from '../../../domain/account-input.js';
import { urlFor } from '../../context.js';
import type { FrontendState } from '../../context.js';
import { redirectToLogin, sessionIdOf } from '../../session.js';
import type { AccountPages, Body, FormView } from './forms.js';

export function profileRoutes(pages: AccountPages): void {
  const { kit } = pages;
  const { services } = kit;

  const updateRoute = <S extends z.ZodType>(spec: {
    path: string;
    name: string;
    formPath: string;
    schema: S;
    fields: string[];
    form: FormView;
    save: (request: FastifyRequest, state: FrontendState, input: z.output<S>) => Promise<void>;
  }) =>
    kit.page(['GET', 'POST'], spec.path, { name: spec.name }, async (request, reply, state) => {
      if (redirectToLogin(request, reply, state)) return reply;
      if (request.method !== 'POST') return reply.redirect(urlFor(state, spec.formPath));
      return pages.submit(request, reply, state, {
        schema: spec.schema,
        fields: spec.fields,
        form: spec.form,
        action: async (input) => {
          await spec.save(request, state, input);
          return reply.redirect(`${urlFor(state, spec.formPath)}?saved=1`, 303);
        },
      });
    });

  const profileForm: FormView = (request, reply, state, data = {}) => {
    const user = state.user!;
    const query = request.query as Body;
    return pages.page(request, reply, state, 'user/profile', {
      title: 'Your profile',
      action: urlFor(state, '/user/profile/update'),
      account: { name: user.name, email: user.email, username: user.username ?? '' },
      form: { name: user.name, username: user.username ?? '' },
      notice:
        query.welcome === '1'
          ? 'Welcome! Your account is ready.'
          : query.saved === '1'
            ? 'Your profile has been saved.'
            : null,
      write_url: urlFor(state, '/post/create'),
      ...data,
    });
  };

  kit.page('GET', '/user/profile', { name: 'users.profile' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    return profileForm(request, reply, state);
  });

  updateRoute({
    path: '/user/profile/update',
    name: 'users.profile.update',
    formPath: '/user/profile',
    schema: profileInput,
    fields: ['name', 'username'],
    form: profileForm,
    save: (_request, state, input) => services.accounts.updateProfile(state.user!.id, input),
  });

  const settingsForm: FormView = (request, reply, state, data = {}) =>
    pages.page(request, reply, state, 'user/settings', {
      title: 'Account settings',
      action: urlFor(state, '/user/settings/update'),
      form: { email: state.user!.email },
      notice: (request.query as Body).saved === '1' ? 'Your settings have been saved.' : null,
      ...data,
    });

  kit.page('GET', '/user/settings', { name: 'users.settings' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    return settingsForm(request, reply, state);
  });

  updateRoute({
    path: '/user/settings/update',
    name: 'users.settings.update',
    formPath: '/user/settings',
    schema: settingsInput,
    fields: ['email'],
    form: settingsForm,
    save: async (request, state, input) =>
      services.accounts.updateSettings(
        state.user!,
        { email: input.email, newPassword: input.password, currentPassword: input.current_password },
        (await sessionIdOf(services, request)) as string,
      ),
  });
}
