// Does a website's domain lead to this server (issue 25 #6)? Two tests, either is enough:
// - DNS: the domain's addresses compared with this machine's (its network interfaces);
// - HTTP: behind a load balancer or NAT the public address is not the machine's, so the domain is
//   asked for a path Folio answers with this installation's token (the safe fetcher's guard applies:
//   public addresses only, a timeout, a byte cap).
// The verdict in words: resolves here, resolves elsewhere, does not resolve.
import { randomBytes } from 'node:crypto';
import dns from 'node:dns';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import type { SafeFetcher } from '../safe-fetch.js';
import type { SettingsService } from '../system/settings.js';

/** The path every website answers with the installation's token (see `domainCheckToken`). */
export const DOMAIN_CHECK_PATH = '/.well-known/folio-domain-check';
/** Hidden from the settings API like every secret (its name holds "token"). */
export const DOMAIN_CHECK_TOKEN_SETTING = 'domain_check_token';

export type DomainVerdict = 'here' | 'elsewhere' | 'unresolved';
export type HttpCheck = 'matched' | 'other' | 'unreachable';

export interface DomainCheck {
  domain: string;
  verdict: DomainVerdict;
  /** The addresses the domain resolves to (empty: it does not resolve). */
  addresses: string[];
  /** Which of them are this machine's. */
  localAddresses: string[];
  /** What the HTTP test found (null: not tried, because DNS already answered "here" or nothing). */
  http: HttpCheck | null;
  httpDetail: string | null;
}

export type Resolver = (domain: string) => Promise<string[]>;

const systemResolver: Resolver = async (domain) =>
  (await dns.promises.lookup(domain, { all: true, verbatim: true })).map((entry) => entry.address);

/** The installation's token, made on first use (one value for every node: setIfAbsent). */
export async function domainCheckToken(settings: SettingsService): Promise<string> {
  const existing = await settings.get(DOMAIN_CHECK_TOKEN_SETTING);
  if (existing) return existing;
  return settings.setIfAbsent(DOMAIN_CHECK_TOKEN_SETTING, randomBytes(24).toString('base64url'));
}

/** This machine's addresses, normalized (an IPv4-mapped IPv6 address as the IPv4 one). */
function machineAddresses(): Set<string> {
  const found = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const entry of list ?? []) found.add(normalize(entry.address));
  }
  return found;
}

function normalize(address: string): string {
  const plain = address.replace(/%.*$/, '');
  return ipaddr.isValid(plain) ? ipaddr.process(plain).toString() : plain;
}

export class DomainChecker {
  /** Replaceable in tests (a resolver that answers without a network). */
  resolve: Resolver = systemResolver;

  constructor(
    private readonly deps: { settings: SettingsService; fetcher: SafeFetcher; scheme: () => string },
  ) {}

  async check(domain: string): Promise<DomainCheck> {
    let addresses: string[];
    try {
      addresses = (await this.resolve(domain)).map(normalize);
    } catch {
      addresses = [];
    }
    const result: DomainCheck = {
      domain,
      verdict: 'unresolved',
      addresses,
      localAddresses: [],
      http: null,
      httpDetail: null,
    };
    if (addresses.length === 0) return result;
    const mine = machineAddresses();
    result.localAddresses = addresses.filter((address) => mine.has(address));
    if (result.localAddresses.length > 0) return { ...result, verdict: 'here' };
    // Not one of this machine's addresses: a proxy may still lead here; ask for the token.
    const token = await this.token();
    try {
      const answer = await this.deps.fetcher.fetchText(
        `${this.deps.scheme()}//${domain}${DOMAIN_CHECK_PATH}`,
      );
      const matched = answer.body.trim() === token;
      return {
        ...result,
        verdict: matched ? 'here' : 'elsewhere',
        http: matched ? 'matched' : 'other',
        httpDetail: matched ? null : 'The domain answered, but not with this installation\u2019s token.',
      };
    } catch (error) {
      return { ...result, verdict: 'elsewhere', http: 'unreachable', httpDetail: (error as Error).message };
    }
  }

  /** The installation's token (made on first use). */
  token(): Promise<string> {
    return domainCheckToken(this.deps.settings);
  }
}
