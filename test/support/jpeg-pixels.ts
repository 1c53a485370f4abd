import type { Page } from 'playwright-core'

/** A rectangle of a picture, in its own pixels. */
export interface PixelBox {
  x: number
  y: number
  width: number
  height: number
}

/**
 * The RGB values inside `box` of a JPEG, decoded by Chromium (an image drawn on
 * a canvas of `page`): no decoder of our own, the browser's is the reference.
 * The region comes back as one base64 string: as an array, Playwright's
 * serializer took ~450 ms for a 600×40 region, the decode itself ~10 ms.
 */
export async function jpegRegion(page: Page, data: Uint8Array, box: PixelBox): Promise<number[]> {
  const base64 = await page.evaluate(
    async ({ base64, box }) => {
      const image = new Image()
      image.src = `data:image/jpeg;base64,${base64}`
      await image.decode()
      const canvas = new OffscreenCanvas(image.width, image.height)
      // Read back on the CPU, not from the GPU.
      const context = canvas.getContext('2d', { willReadFrequently: true })
      if (!context) throw new Error('no 2d context')
      context.drawImage(image, 0, 0)
      const rgba = context.getImageData(box.x, box.y, box.width, box.height).data
      let bytes = ''
      for (let i = 0; i < rgba.length; i += 4)
        bytes += String.fromCharCode(rgba[i] ?? 0, rgba[i + 1] ?? 0, rgba[i + 2] ?? 0)
      return btoa(bytes)
    },
    { base64: Buffer.from(data).toString('base64'), box },
  )
  return Array.from(Buffer.from(base64, 'base64'))
}

/** Mean absolute difference of two equally sized pixel lists, 0–255: JPEG noise stays near 0. */
export function meanDifference(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`regions differ in size: ${a.length} and ${b.length}`)
  let total = 0
  for (let i = 0; i < a.length; i++) total += Math.abs(a[i]! - b[i]!)
  return total / a.length
}
