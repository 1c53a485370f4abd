import { BlockList, isIP } from 'node:net'

/**
 * The one judge of what an address is, for every place that decides whether
 * to connect somewhere (the browser's guard, webhooks, a run's upstream
 * proxy, the relay, allowedDomains): first every spelling of an address is
 * made one (`canonicalAddress`), then that one spelling is classified. A
 * rule written against a spelling instead of this is a rule a URL parser can
 * step around: `[::ffff:169.254.169.254]` reaches Chromium as
 * `[::ffff:a9fe:a9fe]`, `0x7f.1` as `127.0.0.1`.
 */

/**
 * Instance metadata services: AWS/GCP/Azure/OpenStack (IPv4), AWS (IPv6),
 * AWS ECS task metadata, Alibaba Cloud, Oracle Cloud (its v1 endpoint).
 */
export const metadataAddresses = [
  '169.254.169.254',
  'fd00:ec2::254',
  '169.254.170.2',
  '100.100.100.200',
  '192.0.0.192',
]
export const metadataHosts = ['metadata.google.internal', 'metadata.goog', 'metadata']

export type AddressClass =
  | 'metadata'
  | 'loopback'
  | 'unspecified'
  | 'link-local'
  | 'private'
  | 'multicast'
  | 'reserved'
  | 'public'

function rangeList(entries: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList()
  for (const [network, prefix, family] of entries) list.addSubnet(network, prefix, family)
  return list
}

/** In order: the first that holds names the class (loopback before private, and so on). */
const classes: ReadonlyArray<readonly [AddressClass, BlockList]> = [
  [
    'loopback',
    rangeList([
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ]),
  ],
  [
    'unspecified',
    rangeList([
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
  ],
  [
    'link-local',
    rangeList([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
  ],
  [
    'private',
    rangeList([
      ['10.0.0.0', 8, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['192.0.0.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
      ['fec0::', 10, 'ipv6'],
      // Local-use NAT64 (RFC 8215): its IPv4 is not at a fixed place, so the whole prefix counts as inside.
      ['64:ff9b:1::', 48, 'ipv6'],
    ]),
  ],
  [
    'multicast',
    rangeList([
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ]),
  ],
  ['reserved', rangeList([['240.0.0.0', 4, 'ipv4']])],
]

/** The 16 bytes of an IPv6 address in the URL serializer's form (hex groups, at most one `::`). */
function ipv6Bytes(address: string): number[] | undefined {
  const [head = '', tail, extra] = address.split('::')
  if (extra !== undefined) return undefined
  const groups = (text: string) => (text ? text.split(':').map((group) => Number.parseInt(group, 16)) : [])
  const left = groups(head)
  const right = groups(tail ?? '')
  const missing = 8 - left.length - right.length
  if (tail === undefined ? missing !== 0 : missing < 0) return undefined
  const words = [...left, ...Array<number>(missing).fill(0), ...right]
  if (words.some((word) => !(word >= 0 && word <= 0xffff))) return undefined
  return words.flatMap((word) => [word >> 8, word & 0xff])
}

const zero = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0)

/**
 * The IPv4 address an IPv6 address stands for, when it is one of the
 * embeddings that reach it: IPv4-mapped `::ffff:a.b.c.d`, the translated
 * `::ffff:0:a.b.c.d` (SIIT), IPv4-compatible `::a.b.c.d` (deprecated, still
 * routed by some stacks), and well-known-prefix NAT64 `64:ff9b::a.b.c.d`.
 */
function embeddedIpv4(bytes: number[]): string | undefined {
  const high = bytes.slice(0, 12)
  const mapped = zero(high, 0, 10) && high[10] === 0xff && high[11] === 0xff
  const translated = zero(high, 0, 8) && high[8] === 0xff && high[9] === 0xff && zero(high, 10, 12)
  const nat64 =
    high[0] === 0x00 && high[1] === 0x64 && high[2] === 0xff && high[3] === 0x9b && zero(high, 4, 12)
  // :: and ::1 are themselves, not 0.0.0.0 and 0.0.0.1.
  const compatible = zero(high, 0, 12) && !zero(bytes, 12, 15)
  if (!(mapped || translated || nat64 || compatible)) return undefined
  return bytes.slice(12).join('.')
}

/**
 * The one spelling of an IP address, or undefined when `text` is not one (a
 * host name). Brackets, a zone id and trailing dots are dropped; IPv4 in any
 * form the WHATWG URL parser accepts (`2130706433`, `0x7f.1`, `0177.0.0.1`,
 * `127.1`) is dotted decimal; IPv6 is the URL serializer's compressed form,
 * and one that embeds an IPv4 address is that IPv4 address.
 */
export function canonicalAddress(text: string): string | undefined {
  const bare = text
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .replace(/\.+$/, '')
  if (!bare) return undefined
  if (bare.includes(':')) {
    if (isIP(bare) !== 6) return undefined
    const serialized = new URL(`http://[${bare}]/`).hostname.slice(1, -1)
    const bytes = ipv6Bytes(serialized)
    if (!bytes) return undefined
    return embeddedIpv4(bytes) ?? serialized
  }
  // Only the characters of IPv4's spellings: `a@127.0.0.1` or `x/127.1` are not addresses.
  if (!/^[0-9a-fx.]+$/.test(bare)) return undefined
  let host: string
  try {
    host = new URL(`http://${bare}/`).hostname
  } catch {
    return undefined
  }
  return isIP(host) === 4 ? host : undefined
}

/** What `address` (any spelling) is, or undefined when it is not an IP address. */
export function classifyAddress(address: string): AddressClass | undefined {
  const canonical = canonicalAddress(address)
  if (canonical === undefined) return undefined
  if (metadataAddresses.includes(canonical)) return 'metadata'
  const family = isIP(canonical) === 4 ? 'ipv4' : 'ipv6'
  for (const [kind, list] of classes) if (list.check(canonical, family)) return kind
  return 'public'
}

/** A cloud metadata service's name (`metadata.google.internal.` included) or address, in any spelling. */
export function isMetadataHost(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/\.+$/, '')
  return metadataHosts.includes(name) || classifyAddress(host) === 'metadata'
}

/** Whether `address` is one `blockPrivateNetworks` refuses: anything but a public address. */
export function isPrivateAddress(address: string): boolean {
  const kind = classifyAddress(address)
  return kind !== undefined && kind !== 'public'
}

export function isMetadataAddress(address: string): boolean {
  return classifyAddress(address) === 'metadata'
}

/**
 * The key under which an address is compared with a denied origin. Every
 * loopback address and the unspecified addresses (which reach this machine
 * when connected to) count as one, so `127.0.0.2`, `0.0.0.0` or
 * `[::ffff:7f00:1]` cannot reach a server denied as `127.0.0.1`.
 */
export function addressKey(address: string): string {
  const kind = classifyAddress(address)
  if (kind === 'loopback' || kind === 'unspecified') return 'loopback'
  return canonicalAddress(address) ?? address
}

/** localhost and *.localhost always mean this machine (RFC 6761), whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '')
  return name === 'localhost' || name.endsWith('.localhost')
}
