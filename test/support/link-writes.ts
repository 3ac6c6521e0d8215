// Links written in tests through the link operations, as the installation's operator: the operations
// announce each change (the links store does not: issue 35 #4), so the caches of the directory's pages
// see what a reader would. Same inputs as the store (no websites: every website).
import type { Link, LinkInput } from '../../src/domain/community/links.js';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import type { Services } from '../../src/services.js';

export function linkWrites(services: Pick<Services, 'linkOps'>) {
  const ops = services.linkOps;
  return {
    create: (input: LinkInput): Promise<Link> =>
      ops.create(INSTALLATION_OPERATOR, {
        name: input.name,
        url: input.url,
        description: input.description,
        icon: input.icon,
        categories: input.categories,
        website_ids: input.websiteIds ?? [],
      }),
  };
}
