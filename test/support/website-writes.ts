// Websites written in tests through the website operations, as the installation's operator: the
// operations announce each change (the store does not: issue 35 #4), so the caches of pages and hosts
// see what a reader would. Same inputs as the store; `create` answers the new website's id.
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import type { NewWebsite, WebsitePatch } from '../../src/domain/websites/store.js';
import type { Services } from '../../src/services.js';

export function websiteWrites(services: Pick<Services, 'websiteOps'>) {
  const ops = services.websiteOps;
  const operator = INSTALLATION_OPERATOR;
  return {
    create: async (input: NewWebsite): Promise<number> => (await ops.create(operator, input)).id,
    update: (id: number, patch: WebsitePatch) => ops.update(operator, id, patch),
    delete: (id: number) => ops.delete(operator, id),
    addDomain: (id: number, domain: string) => ops.addDomain(operator, id, domain),
    removeDomain: (id: number, domain: string) => ops.removeDomain(operator, id, domain),
  };
}
