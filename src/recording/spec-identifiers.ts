/**
 * Names a generated spec may not give a recording's variables: JavaScript's
 * reserved words (in a module, so strict mode's too), and the names the spec
 * itself uses, at the top (`process`, `URL`, `secret`, `at`…) or inside a step
 * (`target`), which a variable of that name would shadow or break.
 */
const taken = new Set(
  [
    // Reserved words, strict-mode and module reserved words, and names strict mode cannot bind.
    'break case catch class const continue debugger default delete do else enum export extends false',
    'finally for function if import in instanceof new null return super switch this throw true try',
    'typeof var void while with await yield let static implements interface package private protected',
    'public arguments eval',
    // Globals that are values, not bindings a module may redeclare cleanly.
    'undefined NaN Infinity globalThis',
    // What the generated spec itself refers to.
    'page test expect startUrl secret at target process Error URL',
  ].flatMap((words) => words.split(' ')),
)

/**
 * Maps a recording's variable names to identifiers of a generated spec: each
 * name gets one valid identifier, distinct from every other name's (`a-b` and
 * `a_b` both read `a_b` once cleaned) and from the words above.
 */
export function specIdentifiers(): (name: string) => string {
  const byName = new Map<string, string>()
  const used = new Set<string>()
  return (name) => {
    const known = byName.get(name)
    if (known) return known
    let id = name.replace(/[^\w$]/g, '_').replace(/^(\d)/, '_$1') || '_'
    if (taken.has(id)) id = `${id}Value`
    while (used.has(id) || taken.has(id)) id = `${id}_`
    byName.set(name, id)
    used.add(id)
    return id
  }
}
