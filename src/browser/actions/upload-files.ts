import { realpath } from 'node:fs/promises'
import { basename, isAbsolute, relative, resolve, sep } from 'node:path'
import { z } from 'zod'
import { onTarget } from '../../recording/action-descriptor.ts'
import { failed, ok } from '../../tool.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { evaluateElement } from '../view/first-element.ts'
import { type BrowserActionDescriptor, defineBrowserTool } from './define-action.ts'
import { refInput } from './ref-input.ts'

/** Resolves the paths inside `folder`, or says which one is missing or outside it. */
async function filesInside(folder: string, paths: string[]): Promise<string[] | string> {
  const root = await realpath(folder).catch(() => undefined)
  if (!root) return `The upload folder ${folder} does not exist.`
  const files: string[] = []
  for (const path of paths) {
    const real = await realpath(resolve(root, path)).catch(() => undefined)
    if (!real) return `File not found: ${path} (paths are relative to the upload folder).`
    const inside = relative(root, real)
    // `..notes.txt` is a file inside the folder; only `..` itself or `../…` climbs out of it.
    const outside = inside === '..' || inside.startsWith(`..${sep}`)
    if (inside === '' || outside || isAbsolute(inside)) {
      return `Refused to upload ${path}: only files inside the upload folder may be uploaded.`
    }
    files.push(real)
  }
  return files
}

export const uploadFileAction: BrowserActionDescriptor = {
  name: 'upload_file',
  description:
    'Upload files (paths relative to the upload folder) through a file input or the button that opens one.',
  effect: 'destructive',
  docs: {
    input: '`{ ref, paths: string[] }`',
    does: 'uploads files under `SEXTANT_UPLOAD_DIR` through a file input or the button that opens a chooser',
  },
  stuck: 'changes',
  record: { element: 'required', outcome: true },
  playwright: onTarget((target, { input }) => [
    `await ${target}.setInputFiles(${JSON.stringify(input.paths ?? [])})`,
  ]),
}

export function uploadFileTool(session: BrowserToolSurface) {
  return defineBrowserTool(session, {
    action: uploadFileAction,
    input: z.object({ ref: refInput, paths: z.array(z.string().min(1)).min(1) }),
    target: ({ ref }) => ref,
    run: async ({ paths }, ctx, found) => {
      const folder = session.settings.uploadDir
      if (!folder)
        return failed('File uploads are not enabled for this run (no upload folder is configured).')
      const files = await filesInside(folder, paths)
      if (typeof files === 'string') return failed(files)
      const timeout = session.settings.actionTimeoutMs
      const isFileInput = await evaluateElement(
        found.element,
        (element) => element instanceof HTMLInputElement && element.type === 'file',
        undefined,
        ctx.signal,
      )
      if (isFileInput) {
        await found.locator.setInputFiles(files, { timeout, signal: ctx.signal })
      } else {
        const chooser = found.page.waitForEvent('filechooser', { timeout: 3000, signal: ctx.signal })
        chooser.catch(() => {})
        await found.locator.click({ timeout, signal: ctx.signal })
        const opened = await chooser.catch(() => undefined)
        if (!opened)
          return failed(`Clicking ${found.label} did not open a file chooser; use the file input's ref.`)
        await opened.setFiles(files, { timeout })
      }
      const names = files.map((file) => basename(file)).join(', ')
      return ok(`Uploaded ${names} through ${found.label}.`)
    },
  })
}
