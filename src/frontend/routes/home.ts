// The home page (frontend.pages.home).
import type { FrontendKit } from '../index.js';

export function homeRoutes(kit: FrontendKit): void {
  kit.page('GET', '/', { name: 'pages.home', cacheable: true }, async (request, reply) => {
    return kit.render(request, reply, 'home', {});
  });
}
