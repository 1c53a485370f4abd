/** How an exported spec writes text: single-quoted literals, and one-line comments. */

export function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200)
}
