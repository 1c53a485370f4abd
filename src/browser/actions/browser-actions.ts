import type { AnyTool } from '../../tool.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { coordinateTools } from './coordinates.ts'
import { dragTool } from './drag.ts'
import { selectOptionTool } from './forms.ts'
import { executeJavascriptTool } from './javascript.ts'
import { pressKeyTool, typeTool } from './keyboard-input.ts'
import { navigationTools } from './navigation.ts'
import { clickTool, hoverTool } from './pointer.ts'
import { findTool, readPageTool } from './reading.ts'
import { scrollTool } from './scroll.ts'
import { selectTextTool } from './select-text.ts'
import { setValueTool } from './set-value.ts'
import { tabTools } from './tab-actions.ts'
import { uploadFileTool } from './upload-files.ts'

/** The browser actions of a session, in the order the model is shown them. */
export function browserTools(session: BrowserToolSurface): AnyTool[] {
  return [
    ...navigationTools(session),
    clickTool(session),
    typeTool(session),
    selectOptionTool(session),
    setValueTool(session),
    dragTool(session),
    selectTextTool(session),
    hoverTool(session),
    ...coordinateTools(session),
    pressKeyTool(session),
    scrollTool(session),
    findTool(session),
    readPageTool(session),
    ...tabTools(session),
    uploadFileTool(session),
    executeJavascriptTool(session),
  ]
}
