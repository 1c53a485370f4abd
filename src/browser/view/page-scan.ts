/**
 * The one in-page pass the page view adds to Playwright's snapshot: what the
 * accessibility tree does not say (see `scan-records.ts`). It runs alongside
 * the snapshot. Clickable elements the snapshot may have no node of their own
 * for (a clickable span inside a paragraph, a click handler on an empty div)
 * are marked with an attribute as they are found, so an action can reach them
 * without another round trip to the page.
 *
 * It runs inside the page: it must not refer to anything outside itself
 * (types are erased, so importing them is fine).
 */

import type { ScanOptions, ScanRecord, ScanResult } from './scan-records.ts'

/**
 * The scan as the page keeps it: a function closing over the document's
 * element identities. It answers with the result as JSON text: one string
 * crosses to Node far faster than a tree of small objects does.
 */
export interface Scanner {
  (options: ScanOptions): string
  /**
   * The element the latest scan marked `mark`, from the scan's own memory,
   * with the mark put back on it alone (the page may have moved or copied
   * it): null when that scan marked none. Actions reach tagged elements
   * through this, never through the attribute as the page left it.
   */
  pin(mark: string): Element | null
  /** The row or card whose hover shows `element`, as the latest scan found it; null when none does. */
  revealerOf(element: Element): Element | null
}

/**
 * Makes the scanner for one document. The page view holds it by a handle:
 * the identities live in its closure, out of reach of the page's own scripts
 * (which could otherwise swap two elements' identities and move a ref), and
 * its source is sent and compiled once per document, not once per scan.
 */
export function createScanner(): Scanner {
  const nativeTags = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY'])
  const interactiveRoles = new Set([
    'button',
    'link',
    'checkbox',
    'radio',
    'menuitem',
    'menuitemcheckbox',
    'menuitemradio',
    'option',
    'tab',
    'switch',
    'treeitem',
    'combobox',
    'textbox',
    'searchbox',
    'slider',
    'spinbutton',
  ])
  const dragCursor = /^(grab|move|-webkit-grab|[nsew]{1,2}-resize|(col|row|nesw|nwse)-resize)$/
  const dragHandleClass = /(^|[\s_-])(drag-?handle|draggable|sortable-?(item|handle)|grip)($|[\s_-])/i
  const kindsHiddenByRole = new Set([
    'date',
    'datetime-local',
    'time',
    'month',
    'week',
    'password',
    'email',
    'tel',
    'url',
    'color',
    'file',
  ])
  const iconWords =
    /(close|trash|delete|remove|edit|pencil|add|plus|minus|search|menu|hamburger|gear|cog|settings|more|dots|kebab|ellipsis|arrow|chevron|caret|star|heart|like|share|cart|user|profile|account|home|bell|notification|play|pause|stop|next|prev|back|forward|download|upload|copy|refresh|reload|filter|sort|info|help|question|check|tick|cross|x-mark|expand|collapse|zoom|bookmark|flag|pin|mail|email|phone|calendar|clock|lock|unlock|eye|send|save|print|camera|image|video|mic|volume|mute|logout|login|sign)/i
  const iconModifier =
    /^(fa-(solid|regular|light|thin|duotone|brands|sharp|fw|lg|xs|sm|xl|2xs|2xl|\d+x|spin|pulse|border|inverse|stack(-\dx)?|flip(-\w+)?|rotate-\d+)|fa[srlbdk]|bi|mdi|icon|icons)$/i
  const iconAttributes = '[data-icon],[data-lucide],[data-feather]'
  /** Bounds on the hover-revealed: rules kept per document, elements offered per scan (rows in sight). */
  const maxRevealRules = 100
  const maxRevealed = { viewport: 48, wholePage: 400 }
  /** What a person can act on, among what a hover shows. */
  const actsOnItsOwn =
    'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],[role=menuitem],[role=checkbox],[role=switch],[role=tab],[onclick],[tabindex]:not([tabindex="-1"])'
  const impliedRoles: Record<string, string> = { A: 'link', BUTTON: 'button', SELECT: 'combobox' }
  const iconPrefix =
    /^(fa[srlbdk]?|icon|icons|glyphicon|bi|mdi|ti|ion|ri|la|octicon|feather|lucide|material-icons|material-symbols|svg-icon|ico|ql)[-_]/i

  // Taken now: a script the page runs later cannot swap it.
  const stringify = JSON.stringify
  // Element identities last as long as the document (see `ScanRecord.id`).
  const identities = {
    ids: new WeakMap<Element, number>(),
    next: 0,
    documentId: Math.random().toString(36).slice(2, 10),
    /** Counts scans, so one scan's marks never match another's. */
    scans: 0,
  }
  interface PointerRules {
    signature: string
    pointer: string[]
    hover: string[]
    /** Rules that show what a hovered (or focused-within) ancestor holds: WordPress's `tr:hover .row-actions`. */
    reveals: Reveal[]
  }
  interface Reveal {
    /** The ancestor whose hover shows it, its `:hover` taken out (`tr`). */
    within: string
    /** What is shown, every `:hover` taken out (`tr .row-actions`). */
    shown: string
  }
  // What a hover rule changes to show what it hides: drawn or not, seen through, or placed back on the page.
  const revealing =
    /^(display|visibility|opacity|position|left|right|top|bottom|transform|translate|clip|clip-path|pointer-events)$/
  const hoverClass = /:hover|:focus-within/g
  /**
   * `A:hover B` (or `A:hover > B`) as the ancestor hovered and what its hover shows; undefined for a
   * rule on the hovered element itself, on a sibling (`+`, `~`), or on a pseudo-element.
   */
  const revealOf = (selector: string): Reveal | undefined => {
    const at = selector.search(/:hover|:focus-within(?![\w-])/)
    if (at < 0 || selector.includes('::')) return undefined
    // The hovered compound ends at the first combinator outside brackets and parentheses.
    let depth = 0
    let end = at
    for (; end < selector.length; end++) {
      const char = selector.charAt(end)
      if (char === '(' || char === '[') depth++
      else if (char === ')' || char === ']') depth--
      else if (depth === 0 && /[\s>+~]/.test(char)) break
    }
    const rest = selector.slice(end).trim()
    if (!rest || rest.startsWith('+') || rest.startsWith('~')) return undefined
    const within = selector.slice(0, end).replace(hoverClass, '').trim()
    const shown = selector.replace(hoverClass, '').trim()
    if (!within || !CSS.supports(`selector(${within})`) || !CSS.supports(`selector(${shown})`))
      return undefined
    return { within, shown }
  }
  // Reading every style rule is slow on big style sheets: the document's
  // result is kept until its sheets change.
  let documentRules: PointerRules | undefined
  // The elements the last scan marked, to clear before marking anew (a mark a
  // page copies onto a clone never matches a later scan's marks: each scan
  // numbers its own).
  let marked: Element[] = []
  let markedAs: string[] = []
  let markAttribute = ''
  // What the last scan found shown only on hover, and the row or card to hover for each.
  let revealers = new Map<Element, Element>()

  /**
   * The elements the browser says listen (see `listeners/listener-lookup.ts`), taken
   * from where the lookup left them for this scan and deleted there; the
   * pointer-dragged among them, and the lists and columns they can be
   * dropped in (the one each sits in, and that one's like beside it). Where
   * a framework delegates to a root (React, Svelte), an element's handlers
   * are read from the props the framework keeps on it: a hint the page's
   * own scripts write, which only ever adds a ref.
   */
  const takeListeners = (options: ScanOptions) => {
    const elements = new Map<Element, string[]>()
    const draggedByPointer = new Set<Element>()
    const dropZones = new Set<Element>()
    const sorting = new Set<Element>()
    const heard = { elements, draggedByPointer, dropZones, sorting, delegated: false }
    const handoff = options.listeners
    if (!handoff) return heard
    const held = Object.getOwnPropertyDescriptor(document, handoff.key)?.value as
      | { token: string; elements: Map<Element, string[]>; document: string[] }
      | undefined
    const windowWords =
      held && Object.hasOwn(handoff.targets, held.token) ? handoff.targets[held.token] : undefined
    if (!held || !windowWords || !(held.elements instanceof Map) || !Array.isArray(held.document))
      return heard
    // A document that watches the pointer move or hover (a tooltip library) delegates no action.
    // The words of the document, its window, <html> and <body>: where a drag that leaves its element is followed.
    const outer = new Set([...held.document, ...windowWords])
    heard.delegated = held.document.some((kind) => kind !== 'move' && kind !== 'release' && kind !== 'hover')
    for (const [element, kinds] of held.elements) {
      if (!(element instanceof Element) || !Array.isArray(kinds)) continue
      if (kinds.includes('root') || element === document.documentElement || element === document.body) {
        heard.delegated = true
        if (!kinds.includes('root')) for (const kind of kinds) outer.add(kind)
        continue
      }
      // The item a shape is drawn in listens through it: one item's shapes each hear their own kinds.
      const item = drawnItemOf(element)
      const known = elements.get(item)
      elements.set(item, known ? [...new Set([...known, ...kinds])] : kinds)
    }
    // A drag by the pointer is followed where its moves and its release are heard: each on the element, an
    // ancestor, or the document (a list that hears the moves of its items, a document the release once the
    // item, moved in the DOM, lost its pointer capture). A grid cell that hears presses and hovers, with no
    // release heard above it, follows no drag.
    const followed = (element: Element): boolean => {
      const heardAbove = new Set(outer)
      for (let up: Element | null = element; up; up = up.parentElement)
        for (const kind of elements.get(up) ?? []) heardAbove.add(kind)
      return heardAbove.has('move') && heardAbove.has('release')
    }
    for (const [element, kinds] of elements) {
      // A list that takes both a press and drops sorts its items (SortableJS listens on the list, not on them).
      if (kinds.includes('down') && kinds.includes('drop')) {
        sorting.add(element)
        for (const item of Array.from(element.children)) draggedByPointer.add(item)
        continue
      }
      if (!kinds.includes('down') || !followed(element)) continue
      draggedByPointer.add(element)
      const zone = element.parentElement
      // A drawn item is dropped at a point of its drawing, not into the group it is drawn in.
      if (!zone || zone === document.body || (element instanceof SVGElement && element.ownerSVGElement))
        continue
      dropZones.add(zone)
      for (const like of Array.from(zone.parentElement?.children ?? []))
        if (like.tagName === zone.tagName) dropZones.add(like)
    }
    return heard
  }
  /**
   * What a person acts on when a listener sits on a shape of an SVG drawing (a flow editor's node, a
   * chart's bar): the group the shape is drawn in. A `rect` or `path` is no node of the accessibility
   * tree and says nothing, while its group is one and holds the item's label; a shape drawn straight on
   * the `<svg>` is its own item.
   */
  const drawnItemOf = (element: Element): Element => {
    if (!(element instanceof SVGGraphicsElement) || element instanceof SVGSVGElement) return element
    if (element instanceof SVGGElement || element instanceof SVGAElement) return element
    // A shape with a pointer of its own is a control in the item (a node's trigger button): the snapshot gives it a node.
    if (getComputedStyle(element).cursor === 'pointer') return element
    const parent = element.parentElement
    return parent instanceof SVGGElement || parent instanceof SVGAElement ? parent : element
  }
  /**
   * The items that listen inside each outermost `<svg>`, in document order: the walk does not enter drawings
   * (most of their elements are shapes not worth a look), so it looks at these alone there. An item
   * that only hears the pointer pass over it (a chart's tooltip) offers no action of its own.
   */
  const drawnItems = (elements: Map<Element, string[]>): Map<Element, Element[]> => {
    const bySvg = new Map<Element, Element[]>()
    for (const [element, kinds] of elements) {
      let svg = element instanceof SVGElement ? element.ownerSVGElement : null
      if (!svg || kinds.every((kind) => kind === 'hover' || kind === 'move')) continue
      // The outermost drawing: the walk enters none of the drawings inside it.
      while (svg.ownerSVGElement) svg = svg.ownerSVGElement
      const items = bySvg.get(svg)
      if (items) items.push(element)
      else bySvg.set(svg, [element])
    }
    for (const items of bySvg.values())
      items.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1))
    return bySvg
  }
  const frameworkHandlers: [RegExp, string][] = [
    [/^on(Click|MouseDown|MouseUp|PointerDown|PointerUp)$/, 'click'],
    [/^onDoubleClick$/, 'dblclick'],
    [/^onContextMenu$/, 'contextmenu'],
    [/^onKeyDown$/, 'key'],
    [/^onDragStart$/, 'dragstart'],
    [/^on(DragOver|Drop)$/, 'drop'],
    [/^on(MouseEnter|MouseOver|PointerEnter)$/, 'hover'],
  ]
  /** Kinds from a delegating framework's props on the element: React's `__reactProps$…`, Svelte's `__click`. */
  const frameworkKinds = (element: Element): string[] | undefined => {
    const kinds: string[] = []
    for (const key of Object.keys(element)) {
      if (key.startsWith('__reactProps$')) {
        const props = (element as unknown as Record<string, unknown>)[key]
        if (typeof props !== 'object' || props === null) continue
        for (const [name, value] of Object.entries(props)) {
          if (typeof value !== 'function') continue
          const kind = frameworkHandlers.find(([pattern]) => pattern.test(name))?.[1]
          if (kind && !kinds.includes(kind)) kinds.push(kind)
        }
      } else if (/^__(click|dblclick|contextmenu|pointerdown|mousedown|keydown)$/.test(key)) {
        const kind = key === '__keydown' ? 'key' : /down$/.test(key) ? 'click' : key.slice(2)
        if (!kinds.includes(kind)) kinds.push(kind)
      }
    }
    return kinds.length > 0 ? kinds : undefined
  }

  const scanner = ((options: ScanOptions): string => {
    const viewportWidth = window.innerWidth
    const viewportHeight = window.innerHeight
    const scanNumber = ++identities.scans
    let marks = 0
    let offScreen = 0
    const idOf = (element: Element): number => {
      let id = identities.ids.get(element)
      if (id === undefined) {
        id = ++identities.next
        identities.ids.set(element, id)
      }
      return id
    }

    const styles = new Map<Element, CSSStyleDeclaration>()
    const styleOf = (element: Element): CSSStyleDeclaration => {
      let style = styles.get(element)
      if (!style) {
        style = getComputedStyle(element)
        styles.set(element, style)
      }
      return style
    }
    const parentOf = (element: Element): Element | null => {
      if (element.parentElement) return element.parentElement
      const parent = element.parentNode
      return parent instanceof ShadowRoot ? parent.host : null
    }
    const keyOf = (rect: DOMRect): string =>
      `${Math.round(rect.x)},${Math.round(rect.y)},${Math.round(rect.width)},${Math.round(rect.height)}`

    // Which elements may show a pointer cursor, from the style rules that set
    // one (`:hover` rules included: some pointers appear only on hover). Only
    // these, elements with an interactive tag, role or attribute, and form
    // fields are measured at all: measuring every element costs too much.
    const pointerSelectors: string[] = []
    const hoverSelectors: string[] = []
    const reveals: Reveal[] = []
    // One unreadable selector would fail the joined query of them all; an empty fragment tries it without a walk.
    const readableSelector = (selector: string): boolean => {
      try {
        document.createDocumentFragment().querySelector(selector)
        return true
      } catch {
        return false
      }
    }
    const visitRules = (rules: CSSRuleList): void => {
      for (const rule of Array.from(rules)) {
        if (pointerSelectors.length + hoverSelectors.length >= 2000) return
        if (
          rule instanceof CSSStyleRule &&
          reveals.length < maxRevealRules &&
          /:hover|:focus-within/.test(rule.selectorText) &&
          Array.from(rule.style).some((property) => revealing.test(property))
        ) {
          for (const part of rule.selectorText.split(',')) {
            const reveal = revealOf(part.trim())
            if (reveal && reveals.length < maxRevealRules && readableSelector(reveal.shown))
              reveals.push(reveal)
          }
        }
        // Grab, move and resize cursors, and CSS `resize`, mark what a page lets be dragged: their elements are looked at too.
        if (
          rule instanceof CSSStyleRule &&
          (/^(pointer|grab|move|-webkit-grab)$/.test(rule.style.cursor) ||
            dragCursor.test(rule.style.cursor) ||
            /^(both|horizontal|vertical|block|inline)$/.test(rule.style.resize))
        ) {
          for (const part of rule.selectorText.split(',')) {
            const selector = part.replace(/:hover/g, '').trim()
            if (!selector || selector === '*' || !CSS.supports(`selector(${selector})`)) continue
            if (part.includes(':hover')) hoverSelectors.push(selector)
            else pointerSelectors.push(selector)
          }
        }
        if (rule instanceof CSSImportRule && rule.styleSheet) visitSheet(rule.styleSheet)
        const nested = (rule as CSSGroupingRule).cssRules
        if (nested) visitRules(nested)
      }
    }
    const visitSheet = (sheet: CSSStyleSheet): void => {
      try {
        visitRules(sheet.cssRules)
      } catch {
        // Cross-origin style sheets cannot be read.
      }
    }
    const rulesOf = (root: Document | ShadowRoot): PointerRules => {
      const sheets = [...Array.from(root.styleSheets), ...(root.adoptedStyleSheets ?? [])]
      const signature = sheets
        .map((sheet) => {
          try {
            return sheet.cssRules.length
          } catch {
            return -1
          }
        })
        .join(',')
      const cached = root === document ? documentRules : undefined
      if (cached?.signature === signature) return cached
      pointerSelectors.length = 0
      hoverSelectors.length = 0
      reveals.length = 0
      for (const sheet of sheets) visitSheet(sheet)
      const rules = {
        signature,
        pointer: [...pointerSelectors],
        hover: [...hoverSelectors],
        reveals: [...reveals],
      }
      if (root === document) documentRules = rules
      return rules
    }
    const pointerCandidates = new Set<Element>()
    const collectPointers = (root: Document | ShadowRoot): PointerRules => {
      const rules = rulesOf(root)
      const selectors = [...rules.pointer, ...rules.hover, '[style*="cursor"]']
      const select = (selector: string): Element[] => {
        try {
          return Array.from(root.querySelectorAll(selector))
        } catch {
          return []
        }
      }
      let found = select(selectors.join(','))
      if (found.length === 0 && selectors.length > 1) found = selectors.flatMap(select)
      for (const element of found) pointerCandidates.add(element)
      return rules
    }
    const documentPointerRules = collectPointers(document)
    const hoverOnly = documentPointerRules.hover.slice(0, 200)

    const pointer = new Map<Element, boolean>()
    // Overflowing is not scrolling: only `auto`, `scroll` or `overlay` let its content be scrolled to.
    const scrollsOnItsOwn = (element: Element): boolean => {
      const style = styleOf(element)
      const scrolls = /^(auto|scroll|overlay)$/
      return (
        (element.scrollHeight > element.clientHeight + 1 && scrolls.test(style.overflowY)) ||
        (element.scrollWidth > element.clientWidth + 1 && scrolls.test(style.overflowX))
      )
    }
    // How far a scrolling container can still scroll each way: the view says what lies beyond its edges.
    const roomOf = (element: Element): NonNullable<ScanRecord['scrollRoom']> => {
      const up = Math.max(0, Math.round(element.scrollTop))
      const left = Math.max(0, Math.round(element.scrollLeft))
      const down = Math.max(0, Math.round(element.scrollHeight - element.clientHeight - element.scrollTop))
      const right = Math.max(0, Math.round(element.scrollWidth - element.clientWidth - element.scrollLeft))
      return { up, down, left, right }
    }
    const hasPointer = (element: Element): boolean => {
      const cached = pointer.get(element)
      if (cached !== undefined) return cached
      let result = styleOf(element).cursor === 'pointer'
      if (!result && hoverOnly.length > 0 && pointerCandidates.has(element)) {
        result = hoverOnly.some((selector) => element.matches(selector))
      }
      pointer.set(element, result)
      return result
    }

    const fileName = (url: string | null): string => {
      if (!url || url.startsWith('data:')) return ''
      const last = (url.split(/[?#]/)[0] ?? '').split('/').pop() ?? ''
      let name = last
      try {
        name = decodeURIComponent(last)
      } catch {
        // Keep the raw segment.
      }
      return name
        .replace(/\.[a-z0-9]+$/i, '')
        .replace(/(@\dx|[-_]\d+(px)?)$/i, '')
        .slice(0, 30)
    }
    const classHint = (element: Element | null): string => {
      if (!element) return ''
      // An icon font's style and size classes (`fa-solid`, `fa-lg`, `bi-fill`) name no icon.
      const tokens = (element.getAttribute('class') ?? '')
        .split(/\s+/)
        .filter((token) => token && !iconModifier.test(token))
      // An icon set's prefixed class (`fa-file-export`, `bi-gear`), not the bare prefix (`fa`, `bi`).
      const prefixed = tokens.find((token) => /^[a-z][\w-]{2,}$/i.test(token) && iconPrefix.test(token))
      const telling = tokens.find((token) => iconWords.test(token) && /^[a-z][\w-]*$/i.test(token))
      const chosen = telling ?? prefixed ?? ''
      return chosen.replace(iconPrefix, '').slice(0, 30)
    }
    const hintOf = (element: Element): string => {
      for (const attribute of ['title', 'aria-label', 'alt', 'data-tooltip', 'data-title', 'name']) {
        const value = element.getAttribute(attribute)?.trim()
        if (value) return value.slice(0, 40)
      }
      // Icon sets that draw from an attribute (`data-icon="trash"`, Lucide's and Feather's placeholders).
      const named = element.matches(iconAttributes) ? element : element.querySelector(iconAttributes)
      for (const attribute of ['data-icon', 'data-lucide', 'data-feather']) {
        const value = named?.getAttribute(attribute)?.trim()
        if (value) return value.replace(iconPrefix, '').slice(0, 30)
      }
      const image = element.tagName === 'IMG' ? element : element.querySelector('img')
      if (image) {
        const text = image.getAttribute('alt')?.trim() || fileName(image.getAttribute('src'))
        if (text) return text
      }
      const svg = element.tagName.toLowerCase() === 'svg' ? element : element.querySelector('svg')
      if (svg) {
        const title = svg.querySelector('title')?.textContent?.trim()
        if (title) return title.slice(0, 40)
        const use = svg.querySelector('use')
        const href = use?.getAttribute('href') ?? use?.getAttribute('xlink:href')
        if (href?.includes('#')) return (href.split('#').pop() ?? '').replace(iconPrefix, '').slice(0, 30)
      }
      // An image drawn by CSS (`content: url(…)` or a background, on the element,
      // its ::before/::after or its first child) names the icon by its file.
      const drawn = [element, element.firstElementChild].flatMap((owner) =>
        owner
          ? [styleOf(owner), getComputedStyle(owner, '::before'), getComputedStyle(owner, '::after')]
          : [],
      )
      for (const style of drawn) {
        for (const value of [style.content, style.backgroundImage]) {
          const match = /url\(["']?([^"')]+)["']?\)/.exec(value ?? '')
          const name = match ? fileName(match[1] ?? null) : ''
          if (name) return name
        }
      }
      return classHint(element) || classHint(element.firstElementChild) || classHint(svg)
    }

    // Dropdowns and autocomplete lists are appended, positioned, at the end of
    // <body>, or live in the top layer.
    const overlayRoots = Array.from(document.body?.children ?? [])
      .slice(-4)
      .filter((element) => ['absolute', 'fixed'].includes(styleOf(element).position))
    // Only these can be in the top layer; asking the whole document for the
    // pseudo-classes instead costs a full match of every element each scan.
    const layered = Array.from(document.querySelectorAll('dialog[open], [popover]'))
    if (document.fullscreenElement) layered.push(document.fullscreenElement)
    try {
      overlayRoots.push(...layered.filter((element) => element.matches(':popover-open, :modal')))
    } catch {
      // Older engines do not know these pseudo-classes.
    }
    const inOverlay = (element: Element): boolean => overlayRoots.some((root) => root.contains(element))
    const hiddenInside = 'ul,ol,[role=menu],[hidden],[aria-hidden=true]'
    const hasNoText = (element: Element): boolean => !/\S/.test(element.textContent ?? '')

    // Trees drawn with nested lists: folders are items holding a list (shown or
    // hidden) or marked by class; the state is the list's visibility or the class.
    const treeContext =
      '[role=tree],[role=treegrid],[class*=tree],[class*=Tree],[class*=explorer],[class*=folder]'
    const folderClass =
      /(^|[\s_-])(folder|dir|directory|expandable|collapsible|has-?children|collapsed|expanded)($|[\s_-])/i
    const openClass = /(^|[\s_-])(expanded|open|opened)($|[\s_-])/i
    const closedClass = /(^|[\s_-])(collapsed|closed)($|[\s_-])/i
    const isList = (element: Element | null): boolean =>
      !!element &&
      (element.tagName === 'UL' || element.tagName === 'OL' || element.getAttribute('role') === 'group')
    interface TreeItem {
      folder: boolean
      expanded?: boolean
    }
    const treeItemOf = (item: Element): TreeItem => {
      const sublist = Array.from(item.children).find(isList) ?? null
      const className = item.getAttribute('class') ?? ''
      if (sublist === null && !folderClass.test(className)) return { folder: false }
      const ariaExpanded = item.getAttribute('aria-expanded')
      let expanded: boolean | undefined
      if (ariaExpanded) expanded = ariaExpanded === 'true'
      else if (closedClass.test(className)) expanded = false
      else if (openClass.test(className)) expanded = true
      else if (sublist) {
        const box = sublist.getBoundingClientRect()
        expanded = box.height > 0 && styleOf(sublist).visibility === 'visible'
      }
      return expanded === undefined ? { folder: true } : { folder: true, expanded }
    }
    /** The part of a tree item one clicks: its first child with text that is not its sub-list. */
    const labelOf = (item: Element): Element => {
      for (let child = item.firstElementChild; child; child = child.nextElementSibling) {
        if (!isList(child) && /\S/.test(child.textContent ?? '')) return child
      }
      return item
    }
    // Filled as the walk meets list items (before their children): whether each list is in a tree.
    const treeLabels = new Map<Element, TreeItem>()
    const listInTree = new Map<Element, boolean>()
    const noteTreeItem = (item: Element): void => {
      const list = item.parentElement
      if (!list) return
      let inTree = listInTree.get(list)
      if (inTree === undefined) {
        inTree = list.closest(treeContext) !== null
        listInTree.set(list, inTree)
      }
      if (inTree) treeLabels.set(labelOf(item), treeItemOf(item))
    }
    // Entries of a menu or dropdown list: what is in one is there to be clicked.
    const menuish = /(^|[\s_-])(menu|dropdown|popover|actions)($|[\s_-])/i
    const isMenuEntry = (element: Element): boolean => {
      if (element.tagName !== 'LI') return false
      const list = element.parentElement
      const role = list?.getAttribute('role')
      return role === 'menu' || role === 'menubar' || menuish.test(list?.getAttribute('class') ?? '')
    }

    /**
     * What is leaving: inside an `inert` element, or fading out (an opacity
     * transition or animation running toward 0, visibility toward hidden).
     * The boxes of what is in it, at most a few hundred: no ref is offered
     * for them, a click would miss or land on what is behind.
     */
    const leavingBoxes = (): string[] => {
      const roots: Element[] = Array.from(document.querySelectorAll('[inert]'))
      const endsHidden = (frame: Keyframe | undefined): boolean =>
        frame !== undefined && (Number(frame.opacity ?? 1) < 0.05 || frame.visibility === 'hidden')
      for (const animation of document.getAnimations?.() ?? []) {
        if (animation.playState !== 'running') continue
        const effect = animation.effect as KeyframeEffect | null
        const target = effect?.target
        if (target && !effect?.pseudoElement && endsHidden(effect.getKeyframes().at(-1))) roots.push(target)
      }
      const boxes: string[] = []
      for (const root of roots) {
        for (const element of [root, ...Array.from(root.querySelectorAll('*'))]) {
          if (boxes.length >= 400) return boxes
          const rect = element.getBoundingClientRect()
          if (rect.width > 0 && rect.height > 0) boxes.push(keyOf(rect))
        }
      }
      return boxes
    }

    /**
     * What a stale `aria-hidden="true"` claims hidden and the screen shows: elements inside such a
     * container that are on screen, drawn (nothing around them fully transparent, not inert) and take the
     * pointer at their middle. Their boxes, at most a few hundred: the view offers them with refs, marked.
     */
    const shownDespiteClaim = (): string[] => {
      const boxes: string[] = []
      const transparent = new Map<Element, boolean>()
      const faded = (element: Element | null): boolean => {
        if (!element) return false
        const known = transparent.get(element)
        if (known !== undefined) return known
        const result = Number(styleOf(element).opacity) < 0.05 || faded(element.parentElement)
        transparent.set(element, result)
        return result
      }
      for (const root of Array.from(document.querySelectorAll('[aria-hidden="true"]'))) {
        // An icon hidden from assistive tech inside its button is the button's: nothing to offer apart.
        if (root.closest('svg') || root.closest('[inert]')) continue
        for (const element of [root, ...Array.from(root.querySelectorAll('*'))]) {
          if (boxes.length >= 400) return boxes
          const rect = element.getBoundingClientRect()
          const x = rect.left + rect.width / 2
          const y = rect.top + rect.height / 2
          if (rect.width <= 0 || rect.height <= 0 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight)
            continue
          const hit = document.elementFromPoint(x, y)
          if (hit && element.contains(hit) && !faded(element)) boxes.push(keyOf(rect))
        }
      }
      return boxes
    }

    /**
     * What only a hover shows, in the rows and cards in sight: inside an element a hover rule reveals
     * (`tr:hover .row-actions`) or inside an element that hears the pointer enter (a script that adds a
     * class), what a person can act on and is not shown now: not drawn, hidden, seen through, or placed
     * away from its row. Each with the ancestor to hover first. Read from the rules kept per document and
     * the listeners the browser reported; no row is hovered to find them.
     */
    const findRevealed = (
      listening: Map<Element, string[]>,
      reveals: Reveal[],
    ): { by: Map<Element, Element>; concealed: Set<Element> } => {
      const by = new Map<Element, Element>()
      const concealed = new Set<Element>()
      const limit = options.wholePage ? maxRevealed.wholePage : maxRevealed.viewport
      const boxes = new Map<Element, DOMRect>()
      const boxOf = (element: Element): DOMRect => {
        let box = boxes.get(element)
        if (!box) {
          box = element.getBoundingClientRect()
          boxes.set(element, box)
        }
        return box
      }
      const inSight = (row: Element): boolean => {
        const box = boxOf(row)
        if (box.width <= 0 || box.height <= 0) return false
        // A hover over half the screen (a page wrapper's) reveals nothing in particular.
        if (box.width * box.height >= 0.5 * viewportWidth * viewportHeight) return false
        return (
          options.wholePage ||
          (box.right > 0 && box.bottom > 0 && box.left < viewportWidth && box.top < viewportHeight)
        )
      }
      const hiddenNow = (element: Element, row: Element): boolean => {
        if (element.getClientRects().length === 0) return true
        if (styleOf(element).visibility !== 'visible') return true
        for (let up: Element | null = element; up && up !== row; up = parentOf(up))
          if (Number(styleOf(up).opacity) < 0.05) return true
        const box = boxOf(element)
        const around = boxOf(row)
        return (
          box.right <= around.left ||
          box.left >= around.right ||
          box.bottom <= around.top ||
          box.top >= around.bottom
        )
      }
      // A control, or what a script or a pointer cursor makes one (the outermost of a pointer's elements).
      const acts = (element: Element): boolean => {
        if (element.matches(actsOnItsOwn) || typeof (element as HTMLElement).onclick === 'function')
          return true
        if (listening.get(element)?.some((kind) => kind === 'click' || kind === 'press')) return true
        const parent = parentOf(element)
        return styleOf(element).cursor === 'pointer' && !(parent && styleOf(parent).cursor === 'pointer')
      }
      const offer = (holder: Element, row: Element): void => {
        const inside = [holder, ...Array.from(holder.querySelectorAll('*')).slice(0, 60)].filter(acts)
        for (const element of inside) {
          if (by.size >= limit) return
          if (by.has(element) || !hiddenNow(element, row)) continue
          // A control inside another offered one is the outer one's part.
          let nested = false
          for (let up = parentOf(element); up && up !== holder; up = parentOf(up))
            if (by.has(up)) nested = true
          if (nested) continue
          by.set(element, row)
          for (let up = parentOf(element); up && up !== row; up = parentOf(up)) concealed.add(up)
        }
      }
      // One pass over the document finds what every rule shows: a query per rule (up to a hundred on a news
      // site's menus) cost the view 25-50 ms a step. Each rule was read alone when kept (`readableSelector`).
      const holders =
        reveals.length > 0
          ? Array.from(document.querySelectorAll(reveals.map(({ shown }) => shown).join(','))).slice(0, 500)
          : []
      for (const holder of holders) {
        if (by.size >= limit) break
        for (const { within, shown } of reveals) {
          if (!holder.matches(shown)) continue
          const row = parentOf(holder)?.closest(within)
          // A rule whose element shows now (its row hovered, or shown anyway) has nothing to reveal.
          if (row && inSight(row) && hiddenNow(holder, row)) {
            offer(holder, row)
            break
          }
        }
      }
      for (const [row, kinds] of listening) {
        if (by.size >= limit) break
        if (kinds.includes('hover') && inSight(row)) offer(row, row)
      }
      return { by, concealed }
    }

    const heard = takeListeners(options)
    const revealed = findRevealed(heard.elements, documentPointerRules.reveals)
    const records: ScanRecord[] = []
    // Marks are written after the walk: a write between two box reads would
    // make the browser lay the page out again for the second read.
    const newMarks: [Element, string][] = []
    /** A hover-revealed element's record: always marked (hidden ones have no snapshot node), placed in its row. */
    const revealedRecord = (element: Element, tag: string): ScanRecord => {
      const rect = element.getBoundingClientRect()
      const record: ScanRecord = {
        box: keyOf(rect),
        tag: tag.toLowerCase(),
        clickable: true,
        id: idOf(element),
        onHover: true,
      }
      record.mark = `${identities.documentId}.${scanNumber}.${++marks}`
      newMarks.push([element, record.mark])
      const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim()
      record.text = text.slice(0, 80)
      if (!text) {
        const hint = hintOf(element)
        if (hint) record.hint = hint
      }
      const role =
        element.getAttribute('role') ??
        (tag === 'A' && !element.hasAttribute('href') ? undefined : impliedRoles[tag])
      if (role) record.role = role
      const parents: string[] = []
      for (let up = parentOf(element); up && parents.length < 12; up = parentOf(up)) {
        const box = up.getBoundingClientRect()
        if (box.width > 0 && box.height > 0) parents.push(keyOf(box))
      }
      record.parents = parents
      return record
    }
    // Never rendered, or (inside an SVG image) not worth a look of their own.
    const skipped = new Set(['HEAD', 'SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'svg', 'SVG'])
    const stack: Element[] = [document.documentElement]
    const drawn = drawnItems(heard.elements)
    for (let element = stack.pop(); element !== undefined; element = stack.pop()) {
      if (!skipped.has(element.tagName) && !(element instanceof SVGElement)) {
        for (let child = element.lastElementChild; child; child = child.previousElementSibling)
          stack.push(child)
      }
      // Last pushed, first looked at: the items go on in reverse, so an item comes before those inside it.
      const items = element instanceof SVGSVGElement ? drawn.get(element) : undefined
      if (items) for (const item of [...items].reverse()) stack.push(item)
      const shadow = element.shadowRoot
      if (shadow) {
        collectPointers(shadow)
        for (let child = shadow.lastElementChild; child; child = child.previousElementSibling)
          stack.push(child)
      }

      const tag = element.tagName.toUpperCase()
      if (tag === 'LI') noteTreeItem(element)
      if (revealed.by.has(element)) {
        records.push(revealedRecord(element, tag))
        continue
      }
      const role = element.getAttribute('role') ?? undefined
      const html = element as HTMLElement
      const collapsed = element.getAttribute('aria-expanded') === 'false'
      const listens = heard.elements.get(element) ?? (heard.delegated ? frameworkKinds(element) : undefined)

      // A link or button with text says all there is in the snapshot; only what
      // the snapshot cannot say is worth measuring (on link-heavy pages most
      // elements are such links).
      const interactive = nativeTags.has(tag) || (role !== undefined && interactiveRoles.has(role))
      const worthALook = interactive
        ? tag === 'INPUT' ||
          tag === 'TEXTAREA' ||
          tag === 'SELECT' ||
          tag === 'SUMMARY' ||
          // An editor with role=textbox (CodeMirror's) is still [multiline] once it holds text.
          element.hasAttribute('contenteditable') ||
          (tag === 'A' && !element.hasAttribute('href')) ||
          collapsed ||
          hasNoText(element) ||
          // Its text may all be hidden (a "more" button holding its menu): then its icon names it.
          (element.firstElementChild !== null && element.querySelector(hiddenInside) !== null) ||
          inOverlay(element)
        : collapsed ||
          treeLabels.has(element) ||
          isMenuEntry(element) ||
          pointerCandidates.has(element) ||
          element.hasAttribute('onclick') ||
          element.hasAttribute('tabindex') ||
          element.hasAttribute('contenteditable') ||
          typeof html.onclick === 'function' ||
          listens !== undefined ||
          heard.dropZones.has(element) ||
          heard.draggedByPointer.has(element)
      // What a page made draggable: the attribute, a grab, move or resize cursor, a drag handle's class,
      // CSS `resize` (but not a text area's own, which every one has).
      const draggable =
        element.getAttribute('draggable') === 'true' ||
        dragHandleClass.test(element.getAttribute('class') ?? '') ||
        // A `dragstart` listener on what the browser would not drag hears its descendants' drags.
        (!interactive &&
          (heard.draggedByPointer.has(element) || (!!listens?.includes('dragstart') && html.draggable))) ||
        (pointerCandidates.has(element) &&
          (dragCursor.test(styleOf(element).cursor) ||
            (tag !== 'TEXTAREA' && !/^(none|)$/.test(styleOf(element).resize))))
      // A container the page scrolls on its own (not the document's scroller): `scroll` takes its ref.
      const scrollable =
        (html.scrollHeight > html.clientHeight + 1 || html.scrollWidth > html.clientWidth + 1) &&
        element !== document.scrollingElement &&
        element !== document.body &&
        element !== document.documentElement &&
        scrollsOnItsOwn(element)
      // A slider's value is not in the snapshot's line: always measured.
      const slider = role === 'slider' || (tag === 'INPUT' && (element as HTMLInputElement).type === 'range')
      // Controls whose label a click changes (Follow → Following, Play → Pause)
      // are measured for their identity alone. Links are not: they rarely
      // change their text, are most of a big page's elements, and Playwright's
      // ref already follows them while their text stays.
      if (!worthALook && !slider && !draggable && !scrollable && (!interactive || tag === 'A')) continue
      const rect = element.getBoundingClientRect()
      if (rect.width <= 0 || rect.height <= 0) continue
      const onScreen =
        rect.right > 0 && rect.bottom > 0 && rect.left < viewportWidth && rect.top < viewportHeight
      if (!onScreen && !options.wholePage) {
        offScreen++
        continue
      }
      if (!worthALook && !slider && !draggable && !scrollable) {
        // A control with text needs nothing but its identity, so it keeps its ref when relabelled.
        records.push({ box: keyOf(rect), tag: tag.toLowerCase(), clickable: true, id: idOf(element) })
        continue
      }
      const style = styleOf(element)
      if (style.visibility !== 'visible') continue

      const parent = parentOf(element)
      const editableRoot =
        html.isContentEditable === true && !(parent as HTMLElement | null)?.isContentEditable
      const native =
        (tag === 'A' ? element.hasAttribute('href') : nativeTags.has(tag)) &&
        !(tag === 'INPUT' && (element as HTMLInputElement).type === 'hidden')
      const withRole = role !== undefined && interactiveRoles.has(role)
      const tree = treeLabels.get(element)
      // An anchor without href is a script's button (a named anchor is a target, not an action).
      const scriptAnchor =
        tag === 'A' && !native && !element.hasAttribute('name') && /\S/.test(element.textContent ?? '')
      // A pointer set by the element's own style rule marks an action of its own, even inside a clickable row.
      const ownPointer =
        pointerCandidates.has(element) &&
        !!parent &&
        hasPointer(parent) &&
        hasPointer(element) &&
        keyOf(parent.getBoundingClientRect()) !== keyOf(rect)
      // A listener on a box that fills half the screen serves what is inside it (a click-outside catcher, a
      // framework's container); drops are the exception (a board's column).
      const large = rect.width * rect.height >= 0.5 * viewportWidth * viewportHeight
      const taken = listens?.filter(
        (kind) =>
          !large &&
          (['click', 'press', 'dblclick', 'contextmenu', 'dragstart', 'hover'].includes(kind) ||
            (kind === 'key' && html.tabIndex >= 0)),
      )
      const droppable = !interactive && (!!listens?.includes('drop') || heard.dropZones.has(element))
      let clickable = false
      if (style.pointerEvents !== 'none') {
        clickable =
          native ||
          draggable ||
          scrollable ||
          scriptAnchor ||
          ownPointer ||
          tree !== undefined ||
          isMenuEntry(element) ||
          withRole ||
          editableRoot ||
          !!taken?.length ||
          droppable ||
          element.hasAttribute('onclick') ||
          typeof html.onclick === 'function' ||
          (element.hasAttribute('tabindex') && html.tabIndex >= 0) ||
          (hasPointer(element) && !(parent && hasPointer(parent)))
      }
      if (
        !clickable &&
        !collapsed &&
        !editableRoot &&
        tag !== 'INPUT' &&
        tag !== 'TEXTAREA' &&
        tag !== 'SELECT'
      )
        continue

      const record: ScanRecord = { box: keyOf(rect), tag: tag.toLowerCase(), clickable, id: idOf(element) }
      if (tag === 'INPUT') {
        const input = element as HTMLInputElement
        if (kindsHiddenByRole.has(input.type)) record.inputType = input.type
        if (input.type === 'password' && input.value) record.masked = true
        if (input.readOnly) record.readonly = true
      } else if (tag === 'TEXTAREA') {
        record.multiline = true
        if ((element as HTMLTextAreaElement).readOnly) record.readonly = true
      } else if (tag === 'SELECT' && (element as HTMLSelectElement).multiple) {
        record.multiple = true
      }
      if (slider) {
        const input = tag === 'INPUT' ? (element as HTMLInputElement) : undefined
        const read = (name: string, fallback: string) => element.getAttribute(name) ?? fallback
        record.range = input
          ? { value: input.value, min: input.min || '0', max: input.max || '100' }
          : {
              value: read('aria-valuetext', read('aria-valuenow', '')),
              min: read('aria-valuemin', ''),
              max: read('aria-valuemax', ''),
            }
      }
      if (clickable && taken?.length) {
        // A press on what is dragged by the pointer starts the drag, not a click.
        const pressed =
          taken.includes('press') && !heard.draggedByPointer.has(element) && !heard.sorting.has(element)
        // A control's own role already offers it; a hover listener on it is most often a tooltip's.
        const told = ['click', 'dblclick', 'contextmenu', 'hover'].filter(
          (kind) =>
            (taken.includes(kind) && (kind !== 'hover' || (!native && !withRole))) ||
            (kind === 'click' && pressed),
        )
        if (told.length > 0) record.listens = told
      }
      if (clickable && droppable) record.droppable = true
      if (draggable) record.draggable = true
      if (scrollable) {
        record.scrollable = true
        record.scrollRoom = roomOf(element)
      }
      if (editableRoot) record.editable = true
      if (collapsed) record.expanded = false
      if (tree?.folder) record.folder = true
      if (tree?.expanded !== undefined) record.expanded = tree.expanded
      if (tag === 'SUMMARY' && parent?.tagName === 'DETAILS')
        record.expanded = (parent as HTMLDetailsElement).open
      if (onScreen && (clickable || tag === 'INPUT') && inOverlay(element)) record.overlay = true
      // Visible text only: a control's hidden menu is not its name (innerText
      // knows what is hidden, but is slow: only asked when something may be).
      const raw =
        element.firstElementChild !== null && element.querySelector(hiddenInside) !== null
          ? html.innerText
          : element.textContent
      const text = (raw ?? '').replace(/\s+/g, ' ').trim().slice(0, 200)
      // An empty editor is a field, not a glyph: its classes (Quill's `ql-editor`) name no icon.
      if (clickable && !text && !editableRoot) {
        const hint = hintOf(element)
        if (hint) record.hint = hint
      }
      // Native controls and interactive roles always have a snapshot node of their own; others may not.
      if (clickable && !native && !withRole) {
        // The document's id keeps a mark from matching in a later document.
        record.mark = `${identities.documentId}.${scanNumber}.${++marks}`
        newMarks.push([element, record.mark])
        record.text = text.slice(0, 80)
        if (role) record.role = role
        const parents: string[] = []
        for (let up = parent; up && parents.length < 12; up = parentOf(up)) {
          const box = up.getBoundingClientRect()
          if (box.width > 0 && box.height > 0) parents.push(keyOf(box))
        }
        record.parents = parents
      }
      records.push(record)
    }

    const scroller = document.scrollingElement ?? document.documentElement
    const leaving = leavingBoxes()
    const result: ScanResult = {
      title: document.title,
      documentId: identities.documentId,
      scrollX: window.scrollX,
      scrollY: window.scrollY,
      viewportWidth,
      viewportHeight,
      scrollWidth: scroller.scrollWidth,
      scrollHeight: scroller.scrollHeight,
      records,
      offScreen,
    }
    if (leaving.length > 0) result.leaving = leaving
    const shown = shownDespiteClaim()
    if (shown.length > 0) result.shownHidden = shown
    const concealed = new Set<string>()
    for (const element of revealed.concealed) {
      const box = element.getBoundingClientRect()
      if (box.width > 0 && box.height > 0) concealed.add(keyOf(box))
    }
    if (concealed.size > 0) result.concealed = [...concealed]
    revealers = revealed.by
    for (const element of marked) element.removeAttribute(options.attribute)
    for (const [element, mark] of newMarks) element.setAttribute(options.attribute, mark)
    marked = newMarks.map(([element]) => element)
    markedAs = newMarks.map(([, mark]) => mark)
    markAttribute = options.attribute
    return stringify(result)
  }) as Scanner
  scanner.pin = (mark: string): Element | null => {
    const index = markedAs.indexOf(mark)
    const element = index < 0 ? undefined : marked[index]
    if (!element?.isConnected || !markAttribute) return null
    const selector = `[${markAttribute}="${CSS.escape(mark)}"]`
    const clear = (root: Document | ShadowRoot) => {
      for (const other of root.querySelectorAll(selector))
        if (other !== element) other.removeAttribute(markAttribute)
      for (const host of root.querySelectorAll('*')) if (host.shadowRoot) clear(host.shadowRoot)
    }
    clear(document)
    element.setAttribute(markAttribute, mark)
    return element
  }
  scanner.revealerOf = (element: Element): Element | null => {
    const row = revealers.get(element)
    return row?.isConnected && element.isConnected ? row : null
  }
  return scanner
}
