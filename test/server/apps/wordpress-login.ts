import { actionTurn, doneTurn, type FakeTurn } from '../../support/models/fake-openai.ts'
import { refOn } from '../widgets/view-reading.ts'

/** The secret the administrator's password travels as: the model writes only its placeholder. */
export const passwordSecret = 'wp_password'

/**
 * WordPress's login form as a model meets it: the user name typed first, then the password (its secret's
 * placeholder) with Enter. Undefined when the view is no login form.
 */
export function logIn(view: string, user: string): FakeTurn | undefined {
  if (!view.includes('Title: Log In')) return undefined
  const name = refOn(view, /textbox "Username or Email Address"/)
  if (name && !refOn(view, new RegExp(`textbox "Username or Email Address".*: ${user}$`)))
    return actionTurn('type', { ref: name, text: user })
  const password = refOn(view, /textbox "Password"/)
  return password
    ? actionTurn('type', { ref: password, text: `<secret>${passwordSecret}</secret>`, submit: true })
    : doneTurn('The login form has no password field.', false)
}
