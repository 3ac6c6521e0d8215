// The client a per-address limit counts: an IPv4 address as it is, an IPv6 address by its /64 (the
// smallest network a provider hands one customer, who may use any of its 2^64 addresses), an
// IPv4-mapped IPv6 address as its IPv4 address. Anything unparseable counts as itself.
import ipaddr from 'ipaddr.js';

export function clientBucket(address: string | null | undefined): string {
  const text = (address ?? '').trim();
  if (!text) return 'unknown';
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // A zone index (fe80::1%eth0) is not part of the address.
    parsed = ipaddr.parse(text.replace(/%.*$/, ''));
  } catch {
    return text.slice(0, 100);
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
