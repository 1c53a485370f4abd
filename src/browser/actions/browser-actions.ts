import type { AnyTool } from '../../tool.ts'
import type { BrowserToolSurface } from '../session/tool-surface.ts'
import { clickAtAction, coordinateTools, dragAtAction, hoverAtAction } from './coordinates.ts'
import type { BrowserActionDescriptor } from './define-action.ts'
import { dragAction, dragTool } from './drag/drag.ts'
import { selectOptionAction, selectOptionTool } from './forms.ts'
import { executeJavascriptAction, executeJavascriptTool } from './javascript.ts'
import { pressKeyAction, pressKeyTool, typeAction, typeTool } from './keyboard-input.ts'
import { goBackAction, goForwardAction, navigateAction, navigationTools, reloadAction } from './navigation.ts'
import { clickAction, clickTool, hoverAction, hoverTool } from './pointer.ts'
import {
  readConsoleAction,
  readConsoleTool,
  readNetworkAction,
  readNetworkTool,
} from './reading/page-log-actions.ts'
import { findAction, findTool, readPageAction, readPageTool } from './reading/page-reading.ts'
import { scrollAction, scrollTool } from './scroll.ts'
import { selectTextAction, selectTextTool } from './select-text.ts'
import { setValueAction, setValueTool } from './set-value.ts'
import { closeTabAction, openTabAction, switchTabAction, tabTools } from './tab-actions.ts'
import { uploadFileAction, uploadFileTool } from './upload-files.ts'

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
    readConsoleTool(session),
    readNetworkTool(session),
    ...tabTools(session),
    uploadFileTool(session),
    executeJavascriptTool(session),
  ]
}

/** What each browser action declares (agent/tools/actions.ts registers them), in the same order. */
export const browserActions: readonly BrowserActionDescriptor[] = [
  navigateAction,
  goBackAction,
  goForwardAction,
  reloadAction,
  clickAction,
  typeAction,
  selectOptionAction,
  setValueAction,
  dragAction,
  selectTextAction,
  hoverAction,
  clickAtAction,
  dragAtAction,
  hoverAtAction,
  pressKeyAction,
  scrollAction,
  findAction,
  readPageAction,
  readConsoleAction,
  readNetworkAction,
  openTabAction,
  switchTabAction,
  closeTabAction,
  uploadFileAction,
  executeJavascriptAction,
]
