// Pages API (spec 4.5, R-Pg1): three placeholders, POST only, no token, answering only `status` and
// `message`. The global switch still covers them (R-A2). Pages themselves live in domain/pages/store.ts.
import type { ApiRouter } from './router.js';

const PUBLIC = { switchKey: null, authKey: null } as const;

export function registerPageRoutes(router: ApiRouter): void {
  const placeholder = (message: string) => async () => ({ status: 'success', message });
  router.route(['POST'], '/pages', PUBLIC, placeholder('Successfully fetched page index'));
  router.route(['POST'], '/pages/store', PUBLIC, placeholder('Successfully fetched page store'));
  router.route(['POST'], '/pages/:id', PUBLIC, placeholder('Successfully fetched page show'));
}
