// Where a webhook may go: https only, to a public address, checked on the address the name resolves to at each
// delivery, and the connection pinned to that checked address (DNS cannot change it between check and connect).
// BRAIN_WEBHOOK_ALLOW_PRIVATE=1 permits loopback, private and link-local targets, and plain http to them.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** IPv4 addresses a webhook must not reach: loopback, private, link-local, shared, reserved, multicast, documentation. */
const NOT_PUBLIC_V4 = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  NOT_PUBLIC_V4.addSubnet(net, prefix, "ipv4");

/**
 * IPv6 forms that carry an IPv4 address, judged by that address (a NAT64 gateway or 6to4 relay would reach it): the
 * byte at which its 4 bytes start. Kept apart from NOT_PUBLIC_V6, whose ::ffff:0:0/96 rule Node's BlockList would
 * also match against every plain IPv4 address.
 */
const EMBEDDING_IPV4: { forms: BlockList; at: number }[] = [
  // IPv4-compatible ::a.b.c.d (deprecated), mapped ::ffff:a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64 well-known 64:ff9b::/96
  {
    nets: [
      ["::", 96],
      ["::ffff:0:0", 96],
      ["::ffff:0:0:0", 96],
      ["64:ff9b::", 96],
    ] as const,
    at: 12,
  },
  { nets: [["2002::", 16]] as const, at: 2 }, // 6to4: 2002:AABB:CCDD::/48
].map(({ nets, at }) => {
  const forms = new BlockList();
  for (const [net, prefix] of nets) forms.addSubnet(net, prefix, "ipv6");
  return { forms, at };
});

/** Global unicast: every other IPv6 address (unspecified, loopback, ULA, link-local, multicast…) is not public. */
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet("2000::", 3, "ipv6");

/**
 * The IANA IPv6 special-purpose registry's blocks inside 2000::/3, refused whole: the IETF protocol assignments
 * 2001::/23 (Teredo 2001::/32 among them: its client's address is obfuscated, so refused rather than decoded, and
 * benchmarking, ORCHID, AMT, AS112), documentation, AS112 direct delegation, SRv6 SIDs. Local-use NAT64
 * 64:ff9b:1::/48 and the discard prefixes lie outside 2000::/3, and so are refused: where a local NAT64 prefix puts
 * the IPv4 address depends on its length, which the service cannot know.
 */
const SPECIAL_V6 = new BlockList();
for (const [net, prefix] of [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2620:4f:8000::", 48],
  ["3fff::", 20],
  ["5f00::", 16],
] as const)
  SPECIAL_V6.addSubnet(net, prefix, "ipv6");

/** The 16 bytes of an IPv6 address, from its WHATWG canonical form (hex groups, `::` at most once). */
function ipv6Bytes(address: string): Buffer | null {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = canonical.includes("::") ? canonical.split("::") : [canonical, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  if (groups.length !== 8) return null;
  const bytes = Buffer.alloc(16);
  groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), i * 2));
  return bytes;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC_V4.check(address, "ipv4");
  // A zone (fe80::1%eth0) names a link: never public.
  if (family !== 6 || address.includes("%")) return false;
  const embedding = EMBEDDING_IPV4.find(({ forms }) => forms.check(address, "ipv6"));
  if (embedding) {
    const bytes = ipv6Bytes(address);
    return bytes !== null && isPublicAddress([...bytes.subarray(embedding.at, embedding.at + 4)].join("."));
  }
  return GLOBAL_UNICAST_V6.check(address, "ipv6") && !SPECIAL_V6.check(address, "ipv6");
}

export class UnsafeTargetError extends Error {
  override name = "UnsafeTargetError";
}

/** The URL's form alone (what `admin webhook add` checks before resolving): http(s), no credentials, a host. */
export function checkTargetUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError("the webhook URL is not a valid absolute URL");
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
    throw new UnsafeTargetError(
      allowPrivate ? "a webhook URL must be https (or http to a private address)" : "a webhook URL must be https",
    );
  }
  if (url.username !== "" || url.password !== "") throw new UnsafeTargetError("a webhook URL must not carry a user name or password");
  if (url.hostname === "") throw new UnsafeTargetError("the webhook URL has no host");
  return url;
}

export interface ResolvedTarget {
  url: URL;
  /** The checked address the connection goes to. */
  address: string;
  family: 4 | 6;
}

/** Resolves the URL's host and checks every address it gives; throws UnsafeTargetError when one is not allowed. */
export async function resolveTarget(raw: string, allowPrivate: boolean, timeoutMs: number): Promise<ResolvedTarget> {
  const url = checkTargetUrl(raw, allowPrivate);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`resolving ${host} took longer than ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      addresses = await Promise.race([lookup(host, { all: true, verbatim: true }), deadline]);
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new Error(code ? `cannot resolve ${host} (${code})` : (err as Error).message);
    } finally {
      clearTimeout(timer);
    }
    if (addresses.length === 0) throw new Error(`cannot resolve ${host}`);
  }
  // Every address must pass: a name that also resolves to an internal address is refused, not tried until one works.
  const internal = addresses.find((a) => !isPublicAddress(a.address));
  if (internal && !allowPrivate) {
    throw new UnsafeTargetError(
      `the webhook host resolves to a loopback, private or link-local address (${internal.address}); ` +
        "such targets need BRAIN_WEBHOOK_ALLOW_PRIVATE=1",
    );
  }
  const chosen = addresses[0]!;
  if (url.protocol === "http:" && isPublicAddress(chosen.address)) {
    throw new UnsafeTargetError("plain http is allowed only to private addresses (with BRAIN_WEBHOOK_ALLOW_PRIVATE=1); use https");
  }
  return { url, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}
