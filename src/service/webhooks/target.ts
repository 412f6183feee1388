// Where a webhook may go: https only, to a public address, checked on the address the name resolves to at each
// delivery, and the connection pinned to that checked address (DNS cannot change it between check and connect).
// BRAIN_WEBHOOK_ALLOW_PRIVATE=1 permits loopback, private and link-local targets, and plain http to them.
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Addresses a webhook must not reach: loopback, private, link-local, shared, reserved, multicast, documentation. */
const NOT_PUBLIC = new BlockList();
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
  NOT_PUBLIC.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, "ipv6");

// (Not in NOT_PUBLIC: Node's BlockList matches every IPv4 address against an IPv4-mapped IPv6 rule.)
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet("::ffff:0:0", 96, "ipv6");

/** The IPv4 address an IPv4-mapped IPv6 address carries (`::ffff:127.0.0.1`, `::ffff:7f00:1`), else null. */
function mappedIpv4(address: string): string | null {
  if (!IPV4_MAPPED.check(address, "ipv6")) return null;
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [hi, lo] = canonical
    .split(":")
    .slice(-2)
    .map((h) => parseInt(h, 16)) as [number, number];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = family === 6 ? mappedIpv4(address) : null;
  if (mapped !== null) return isPublicAddress(mapped);
  return !NOT_PUBLIC.check(address, family === 4 ? "ipv4" : "ipv6");
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
