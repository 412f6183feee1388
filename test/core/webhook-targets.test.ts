// Where a webhook may go (src/service/webhooks/target.ts): https only, public addresses only, unless the operator
// allows private targets, which also permits plain http to them.
import { describe, expect, it } from "vitest";
import { checkTargetUrl, isPublicAddress, resolveTarget, UnsafeTargetError } from "../../src/service/webhooks/target.js";

describe("webhook targets", () => {
  it("loopback, private, link-local, shared, reserved and multicast addresses are not public; others are", () => {
    const internal = [
      "127.0.0.1",
      "127.8.9.10",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::ffff:7f00:1",
      "not-an-address",
    ];
    for (const address of internal) expect(isPublicAddress(address), address).toBe(false);
    for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it("IPv6 that embeds an IPv4 address is judged by that address; the rest of the IANA special-purpose registry is refused", () => {
    const internal = [
      "::127.0.0.1", // IPv4-compatible
      "::7f00:1",
      "::10.0.0.1",
      "::ffff:0:7f00:1", // SIIT IPv4-translated
      "::ffff:0:10.1.2.3",
      "::ffff:169.254.169.254", // mapped
      "64:ff9b::7f00:1", // NAT64 well-known prefix
      "64:ff9b::a00:1", // reaches 10.0.0.1 on a NAT64 network
      "64:ff9b::192.168.0.1",
      "64:ff9b:1::808:808", // local-use NAT64: refused whatever it embeds
      "2002:7f00:1::1", // 6to4 of 127.0.0.1
      "2002:a00:1::", // 6to4 of 10.0.0.1
      "2002:c0a8:101:1::1",
      "2001::1", // Teredo: refused outright
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "2001:2::1", // benchmarking
      "2001:10::1", // ORCHID
      "2001:20::1", // ORCHIDv2
      "2001:db8::1", // documentation
      "3fff::1",
      "100::1", // discard-only
      "100:0:0:1::1", // dummy prefix
      "2620:4f:8000::1", // AS112 direct delegation
      "5f00::1", // SRv6 SIDs
      "fec0::1", // site-local (deprecated)
      "fe80::1%eth0",
      "::",
      "::1",
      "4000::1", // outside global unicast 2000::/3
      "ff0e::1",
    ];
    for (const address of internal) expect(isPublicAddress(address), address).toBe(false);
    for (const address of [
      "::8.8.8.8",
      "64:ff9b::808:808",
      "64:ff9b::8.8.8.8",
      "2002:808:808::1",
      "::ffff:0:8.8.8.8",
      "2a00:1450:4001::200e",
    ]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it("a URL naming such an address is refused at add and at delivery, without the flag", async () => {
    for (const host of ["[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::1]", "[::ffff:0:7f00:1]", "[2001::1]"]) {
      await expect(resolveTarget(`https://${host}/x`, false, 2_000), host).rejects.toBeInstanceOf(UnsafeTargetError);
    }
  });

  it("only https URLs without credentials; http only when private targets are allowed", () => {
    expect(() => checkTargetUrl("http://example.com/x", false)).toThrow(UnsafeTargetError);
    expect(() => checkTargetUrl("ftp://example.com/x", true)).toThrow(UnsafeTargetError);
    expect(() => checkTargetUrl("https://user:pw@example.com/x", false)).toThrow(/user name or password/);
    expect(() => checkTargetUrl("not a url", false)).toThrow(/not a valid absolute URL/);
    expect(checkTargetUrl("https://example.com/x", false).hostname).toBe("example.com");
    expect(checkTargetUrl("http://10.0.0.5/x", true).hostname).toBe("10.0.0.5");
  });

  it("a resolved internal address is refused without the flag; with it, http is allowed to internal addresses only", async () => {
    await expect(resolveTarget("https://localhost:9/x", false, 2_000)).rejects.toThrow(/resolves to a loopback, private or link-local/);
    await expect(resolveTarget("https://[::1]:9/x", false, 2_000)).rejects.toBeInstanceOf(UnsafeTargetError);
    expect((await resolveTarget("http://127.0.0.1:9/x", true, 2_000)).address).toBe("127.0.0.1");
    await expect(resolveTarget("http://8.8.8.8/x", true, 2_000)).rejects.toThrow(/plain http is allowed only to private addresses/);
    expect((await resolveTarget("https://8.8.8.8/x", false, 2_000)).address).toBe("8.8.8.8");
  });
});
