import { createHash } from 'node:crypto'
import { clientCommon } from './client/common.ts'
import { runPage } from './client/run-page.ts'
import { type RunPageParts, runPageParts } from './client/run-parts.ts'
import { runsPage } from './client/runs-page.ts'
import { viewerCss } from './styles.ts'

/**
 * The viewer's script is its client functions' own source text, types
 * already stripped by whatever loaded this module (Node's type stripping, tsc
 * for dist/, Vitest): typed and checked like the rest of the code, with no
 * bundler step, and one file for the browser to fetch. Indentation, comment
 * lines, blank lines and the blanks left where types were are dropped. That
 * is safe because the client code keeps to three rules: no multi-line
 * strings, no string with two spaces in a row, no line that starts with `*`
 * or `//` other than a comment.
 */
function compact(source: string): string {
  return source
    .replace(/^[ \t]+|[ \t]+$/gm, '')
    .replace(/^(\/\/|\/\*\*|\*).*$/gm, '')
    .replace(/ {2,}/g, ' ')
    .replace(/\n{2,}/g, '\n')
}

/** An object literal of the parts' source texts, the same shape as `runPageParts`. */
function partsSource(parts: RunPageParts): string {
  const entries = Object.entries(parts).map(([name, part]) => `${name}: (${part.toString()})`)
  return `{\n${entries.join(',\n')}\n}`
}

export const viewerJs = compact(`const common = (${clientCommon.toString()})();
if (document.body.dataset.page === 'run') (${runPage.toString()})(common, ${partsSource(runPageParts)});
else (${runsPage.toString()})(common);
`)

export { viewerCss }

/** Changes whenever the script or the stylesheet does, so browsers may cache them for good. */
export const viewerAssetVersion = createHash('sha256')
  .update(viewerJs)
  .update(viewerCss)
  .digest('hex')
  .slice(0, 12)
