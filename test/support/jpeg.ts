/** The pixel size in a JPEG's start-of-frame header; throws when the bytes are not a JPEG. */
export function jpegSize(data: Uint8Array): { width: number; height: number } {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('Not a JPEG: no FF D8 start marker.')
  let offset = 2
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) throw new Error(`Not a JPEG: no marker at byte ${offset}.`)
    const marker = bytes[offset + 1]!
    const length = bytes.readUInt16BE(offset + 2)
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) }
    }
    offset += 2 + length
  }
  throw new Error('Not a JPEG: no frame header.')
}
