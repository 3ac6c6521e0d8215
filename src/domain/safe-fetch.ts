// Guarded downloads of remote images (localize_images, spec 4.1 rule 3). A URL from a request body must
// never reach the machine's own network: only http(s); the address is checked after DNS resolution,
// at connect time (so a name that resolves differently the second time gains nothing), and again on
// every redirect, which is followed by hand; a timeout; a byte cap; image content types only.
import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';

/** Decides whether a resolved IP address may be contacted. */
export type AddressPolicy = (address: string) => boolean;

export interface SafeFetchOptions {
  /** Which resolved addresses may be contacted; default: public unicast addresses only. */
  allowAddress?: AddressPolicy;
  /** Whole download, headers and body, in milliseconds. */
  timeoutMs?: number;
  /** Largest body accepted, in bytes. */
  maxBytes?: number;
  maxRedirects?: number;
}

export interface FetchedImage {
  body: Buffer;
  contentType: string;
  /** The URL the bytes came from, after redirects. */
  finalUrl: string;
}

export class SafeFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

// ---- Address classification ------------------------------------------------------------------

/** The 4 bytes of an IPv4 address, or null. */
function ipv4Bytes(address: string): number[] | null {
  if (!net.isIPv4(address)) return null;
  return address.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (with an embedded IPv4 tail, with or without `::`), or null. */
export function ipv6Bytes(address: string): number[] | null {
  const plain = address.replace(/%.*$/, ''); // zone id
  if (!net.isIPv6(plain)) return null;
  let text = plain;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    // An embedded IPv4 tail becomes the last two groups.
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Bytes(v4[1]) ?? [];
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all =
    rest === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  const bytes = all.slice(0, 8).flatMap((group) => {
    const word = parseInt(group || '0', 16);
    return [word >> 8, word & 0xff];
  });
  return bytes.length === 16 ? bytes : null;
}

function inRange(bytes: number[], prefix: number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const byte = Math.floor(bit / 8);
    const mask = 0x80 >> (bit % 8);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

const BLOCKED_V4: Array<[number[], number]> = [
  [[0, 0, 0, 0], 8], // "this network", unspecified
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (cloud metadata lives here)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, broadcast
];

const BLOCKED_V6: Array<[number[], number]> = [
  [[0xfe, 0x80], 10], // link-local
  [[0xfc, 0x00], 7], // unique local (private)
  [[0xff, 0x00], 8], // multicast
  [[0x20, 0x01, 0x0d, 0xb8], 32], // documentation
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64], // discard-only
];

function publicV4(bytes: number[]): boolean {
  return !BLOCKED_V4.some(([prefix, bits]) => inRange(bytes, prefix, bits));
}

/**
 * The default policy: public unicast addresses only. Refuses loopback, private, link-local,
 * unspecified, multicast and reserved ranges, in IPv4 and IPv6, including IPv4 addresses carried in
 * IPv6 (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`).
 */
export function isPublicAddress(address: string): boolean {
  const v4 = ipv4Bytes(address);
  if (v4) return publicV4(v4);
  const v6 = ipv6Bytes(address);
  if (!v6) return false;
  const zeros = (n: number) => v6.slice(0, n).every((byte) => byte === 0);
  // ::/96 covers the unspecified address ::, loopback ::1 and IPv4-compatible addresses.
  if (zeros(12)) return false;
  if (zeros(10) && v6[10] === 0xff && v6[11] === 0xff) return publicV4(v6.slice(12));
  if (inRange(v6, [0, 0x64, 0xff, 0x9b], 32) && v6.slice(4, 12).every((byte) => byte === 0)) {
    return publicV4(v6.slice(12));
  }
  if (v6[0] === 0x20 && v6[1] === 0x02) return publicV4(v6.slice(2, 6));
  return !BLOCKED_V6.some(([prefix, bits]) => inRange(v6, prefix, bits));
}

// ---- The fetcher -------------------------------------------------------------------------------

const DEFAULTS = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };

export class SafeFetcher {
  private allowAddress: AddressPolicy;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private agent: Agent;

  constructor(options: SafeFetchOptions = {}) {
    this.allowAddress = options.allowAddress ?? isPublicAddress;
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
    this.maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
    this.agent = this.createAgent();
  }

  /** Replaces the address policy (tests allow 127.0.0.1 for a fixture server). */
  setAddressPolicy(policy: AddressPolicy): void {
    this.allowAddress = policy;
    const old = this.agent;
    this.agent = this.createAgent();
    void old.close();
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private createAgent(): Agent {
    // Every connection resolves through this lookup: the check happens on the address actually used.
    const lookup: LookupFunction = (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const list = addresses;
        const refused = list.find((entry) => !this.allowAddress(entry.address));
        if (refused || list.length === 0) {
          const err = new SafeFetchError(`refused address ${refused?.address ?? '(none)'} for ${hostname}`);
          return callback(err, '', 0);
        }
        if (options.all)
          return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
        const first = list[0]!;
        callback(null, first.address, first.family);
      });
    };
    // undici follows no redirect unless told to: fetchImage follows them itself, checking each hop.
    return new Agent({ connect: { lookup, timeout: this.timeoutMs } });
  }

  /** Checks a URL before connecting: scheme, and the host when it is an IP literal (no DNS then). */
  private checkUrl(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new SafeFetchError(`scheme ${url.protocol} is not allowed`);
    }
    if (url.username || url.password) throw new SafeFetchError('credentials in URLs are not allowed');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !this.allowAddress(host)) throw new SafeFetchError(`refused address ${host}`);
  }

  /** Downloads an image, or throws SafeFetchError saying why not. */
  async fetchImage(input: string): Promise<FetchedImage> {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new SafeFetchError('not a valid URL');
    }
    const signal = AbortSignal.timeout(this.timeoutMs);
    for (let hop = 0; hop <= this.maxRedirects; hop++) {
      this.checkUrl(url);
      const response = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        signal,
        headers: { accept: 'image/*', 'user-agent': 'Folio image localizer' },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      }).catch((error: unknown) => {
        const cause = error instanceof Error ? (error.cause ?? error) : error;
        throw cause instanceof SafeFetchError
          ? cause
          : new SafeFetchError(`download failed: ${(cause as Error)?.message ?? String(cause)}`);
      });
      if (response.statusCode >= 300 && response.statusCode < 400) {
        await response.body.dump();
        const location = response.headers.location;
        const target = Array.isArray(location) ? location[0] : location;
        if (!target) throw new SafeFetchError(`redirect ${response.statusCode} without a location`);
        url = new URL(target, url);
        continue;
      }
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new SafeFetchError(`HTTP ${response.statusCode}`);
      }
      const typeHeader = response.headers['content-type'];
      const contentType = (Array.isArray(typeHeader) ? typeHeader[0] : typeHeader) ?? '';
      if (!/^image\//i.test(contentType.trim())) {
        await response.body.dump();
        throw new SafeFetchError(`content type ${contentType || '(none)'} is not an image`);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > this.maxBytes) {
        response.body.destroy();
        throw new SafeFetchError(`image larger than ${this.maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of response.body) {
          size += (chunk as Buffer).length;
          if (size > this.maxBytes) {
            response.body.destroy();
            throw new SafeFetchError(`image larger than ${this.maxBytes} bytes`);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (error) {
        if (error instanceof SafeFetchError) throw error;
        throw new SafeFetchError(`download failed: ${(error as Error).message}`);
      }
      return {
        body: Buffer.concat(chunks),
        contentType: contentType.split(';')[0]!.trim(),
        finalUrl: url.href,
      };
    }
    throw new SafeFetchError('too many redirects');
  }
}
