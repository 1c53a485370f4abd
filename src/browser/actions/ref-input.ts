import { z } from 'zod'

/** The input field that names an element by its ref from the page view. */
export const refInput = z.string().min(1).describe('Element ref from the page view, e.g. b1x3')
