export { hostMatchesDomains } from './domains.ts'
export {
  placeholder,
  type Revealed,
  RunSecrets,
  type Secret,
  SecretsError,
  type SecretsInput,
  SecretsSchema,
} from './secrets.ts'
