/**
 * Date and time fields take one format only (`2025-03-15`, `14:30`…), while
 * people and models write dates many ways. This converts the usual ways, and
 * says what the field expects when it cannot.
 */

export type DateKind = 'date' | 'time' | 'datetime-local' | 'month' | 'week'

export const dateKinds: ReadonlySet<string> = new Set(['date', 'time', 'datetime-local', 'month', 'week'])

export const expectedFormat: Record<DateKind, string> = {
  date: 'a date such as 2025-03-15, 03/15/2025 or "March 15, 2025"',
  time: 'a time such as 14:30 or 2:30 PM',
  'datetime-local': 'a date and time such as 2025-03-15 14:30',
  month: 'a month such as 2025-03 or "March 2025"',
  week: 'a week such as 2025-W11, or a date in that week',
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

interface DateParts {
  year: number
  month: number
  day: number
}
interface TimeParts {
  hour: number
  minute: number
  second?: number
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0')

function fullYear(text: string): number {
  const year = Number(text)
  if (text.length > 2) return year
  return year < 70 ? 2000 + year : 1900 + year
}

function monthOf(name: string): number | undefined {
  const index = months.indexOf(name.slice(0, 3).toLowerCase())
  return index < 0 ? undefined : index + 1
}

function valid(parts: DateParts): DateParts | undefined {
  const { year, month, day } = parts
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return undefined
  return parts
}

export function parseDate(input: string): DateParts | undefined {
  const text = input
    .trim()
    .replace(/(\d)(st|nd|rd|th)\b/gi, '$1')
    .replace(/\s+/g, ' ')
  let match = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/.exec(text)
  if (match) return valid({ year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) })
  match = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{2}|\d{4})$/.exec(text)
  if (match) {
    const first = Number(match[1])
    const second = Number(match[3])
    const dayFirst = match[2] === '.' || first > 12
    return valid({
      year: fullYear(match[4] ?? ''),
      month: dayFirst ? second : first,
      day: dayFirst ? first : second,
    })
  }
  // "March 15, 2025", "Mar 15 2025"
  match = /^(?:[a-z]+,? )?([a-z]{3,})\.? (\d{1,2}),? (\d{4})$/i.exec(text)
  if (match) {
    const month = monthOf(match[1] ?? '')
    if (month) return valid({ year: Number(match[3]), month, day: Number(match[2]) })
  }
  // "15 March 2025", "15 Mar, 2025"
  match = /^(?:[a-z]+,? )?(\d{1,2}) ([a-z]{3,})\.?,? (\d{4})$/i.exec(text)
  if (match) {
    const month = monthOf(match[2] ?? '')
    if (month) return valid({ year: Number(match[3]), month, day: Number(match[1]) })
  }
  return undefined
}

export function parseTime(input: string): TimeParts | undefined {
  const text = input.trim().toLowerCase().replace(/\s+/g, ' ')
  const match = /^(\d{1,2})(?:[:.h](\d{2}))?(?::(\d{2}))? ?(am|pm|a\.m\.|p\.m\.)?$/.exec(text)
  if (!match || (match[2] === undefined && match[4] === undefined)) return undefined
  let hour = Number(match[1])
  const minute = Number(match[2] ?? 0)
  const meridiem = match[4]?.replace(/\./g, '')
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined
    hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0)
  }
  if (hour > 23 || minute > 59) return undefined
  const parts: TimeParts = { hour, minute }
  if (match[3] !== undefined) {
    const second = Number(match[3])
    if (second > 59) return undefined
    parts.second = second
  }
  return parts
}

function formatDate(parts: DateParts): string {
  return `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)}`
}

function formatTime(parts: TimeParts): string {
  return `${pad(parts.hour)}:${pad(parts.minute)}${parts.second === undefined ? '' : `:${pad(parts.second)}`}`
}

function isoWeek(parts: DateParts): string {
  const date = new Date(Date.UTC(parts.year, parts.month - 1, parts.day))
  const weekday = date.getUTCDay() || 7
  date.setUTCDate(date.getUTCDate() + 4 - weekday)
  const yearStart = new Date(Date.UTC(date.getUTCFullYear(), 0, 1))
  const week = Math.ceil(((date.getTime() - yearStart.getTime()) / 86_400_000 + 1) / 7)
  return `${date.getUTCFullYear()}-W${pad(week)}`
}

/** The value a `<input type=kind>` accepts for `text`, or undefined when `text` is not understood. */
export function toInputValue(kind: DateKind, text: string): string | undefined {
  const trimmed = text.trim()
  switch (kind) {
    case 'date': {
      const date = parseDate(trimmed)
      return date && formatDate(date)
    }
    case 'time': {
      const time = parseTime(trimmed)
      return time && formatTime(time)
    }
    case 'datetime-local': {
      const match = /^(.*?)(?:[T ]|,? at |, )(\d{1,2}(?:[:.h]\d{2})?(?::\d{2})? ?(?:[ap]\.?m\.?)?)$/i.exec(
        trimmed,
      )
      if (!match) return undefined
      const date = parseDate(match[1] ?? '')
      const time = parseTime(match[2] ?? '')
      return date && time ? `${formatDate(date)}T${formatTime(time)}` : undefined
    }
    case 'month': {
      let match = /^(\d{4})[-/](\d{1,2})$/.exec(trimmed)
      if (match)
        return Number(match[2]) >= 1 && Number(match[2]) <= 12
          ? `${match[1]}-${pad(Number(match[2]))}`
          : undefined
      match = /^(\d{1,2})[-/](\d{4})$/.exec(trimmed)
      if (match)
        return Number(match[1]) >= 1 && Number(match[1]) <= 12
          ? `${match[2]}-${pad(Number(match[1]))}`
          : undefined
      match = /^([a-z]{3,})\.?,? (\d{4})$/i.exec(trimmed)
      const named = match && monthOf(match[1] ?? '')
      if (match && named) return `${match[2]}-${pad(named)}`
      const date = parseDate(trimmed)
      return date && `${pad(date.year, 4)}-${pad(date.month)}`
    }
    case 'week': {
      const match = /^(\d{4})-?W(\d{1,2})$/i.exec(trimmed)
      if (match)
        return Number(match[2]) >= 1 && Number(match[2]) <= 53
          ? `${match[1]}-W${pad(Number(match[2]))}`
          : undefined
      const date = parseDate(trimmed)
      return date && isoWeek(date)
    }
  }
}
