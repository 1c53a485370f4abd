import { BlockList, isIP } from 'node:net'

/**
 * What an IP address is, for the rules every run obeys: cloud metadata
 * endpoints are never reachable; private, loopback and link-local addresses
 * are refused under `blockPrivateNetworks`.
 */

/** Instance metadata services: AWS/GCP/Azure/OpenStack (IPv4), AWS (IPv6), AWS ECS task metadata. */
export const metadataAddresses = ['169.254.169.254', 'fd00:ec2::254', '169.254.170.2']
export const metadataHosts = ['metadata.google.internal', 'metadata.goog']

function privateRanges(): BlockList {
  const list = new BlockList()
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv4')
  }
  for (const [network, prefix] of [
    ['::', 127],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv6')
  }
  return list
}

const ranges = privateRanges()

/** `::ffff:10.0.0.1` → `10.0.0.1`: a mapped address is judged by the IPv4 address it reaches. */
export function unmapAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase()
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)
  return mapped?.[1] ?? bare
}

export function isPrivateAddress(address: string): boolean {
  const ip = unmapAddress(address)
  const family = isIP(ip)
  if (family === 0) return false
  return ranges.check(ip, family === 4 ? 'ipv4' : 'ipv6')
}

export function isMetadataAddress(address: string): boolean {
  return metadataAddresses.includes(unmapAddress(address))
}

/**
 * The key under which an address is compared with a denied origin. Every
 * loopback address and the unspecified addresses (which reach this machine
 * when connected to) count as one, so `127.0.0.2` or `0.0.0.0` cannot reach
 * a server denied as `127.0.0.1`.
 */
export function addressKey(address: string): string {
  const ip = unmapAddress(address)
  if (ip === '::1' || ip === '::' || ip === '0.0.0.0' || /^127\./.test(ip)) return 'loopback'
  return ip
}

/** localhost and *.localhost always mean this machine (RFC 6761), whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost')
}
