import { z } from 'zod'

/** The input field that names an element by its ref from the page view (the system prompt says what a ref is). */
export const refInput = z.string().min(1)
