/** Inputs and outputs of the passkey operations. */
import { Id, InputObject, Int64, OptStr, OutputObject, Str, Type } from '../../core/schema.js';

/** The credential JSON of a ceremony: attestation objects of some authenticators run to several kilobytes. */
const credential = () => Str({ min: 2, max: 65_536 });

export const WebauthnRegistrationOptionsRequest = InputObject('WebauthnRegistrationOptionsRequest', {
  email: OptStr({ max: 320 }),
  phone_number: OptStr({ max: 32 }),
});

export const WebauthnRegistrationVerifyRequest = InputObject('WebauthnRegistrationVerifyRequest', {
  name: OptStr({ max: 128 }),
  credential: credential(),
  email: OptStr({ max: 320 }),
  phone_number: OptStr({ max: 32 }),
  state: OptStr({ max: 1024 }),
});

export const WebauthnLoginOptionsRequest = InputObject('WebauthnLoginOptionsRequest', { email: OptStr({ max: 320 }) });

export const WebauthnLoginVerifyRequest = InputObject('WebauthnLoginVerifyRequest', {
  state: OptStr({ max: 1024 }),
  credential: credential(),
});

export const WebauthnDeleteCredentialRequest = InputObject('WebauthnDeleteCredentialRequest', { id: Id() });

export const WebauthnRegistrationOptionsResponse = OutputObject('WebauthnRegistrationOptionsResponse', {
  options: Type.String(),
});
export const WebauthnLoginOptionsResponse = OutputObject('WebauthnLoginOptionsResponse', { options: Type.String() });

export const WebauthnCredentialInfo = OutputObject('WebauthnCredentialInfo', {
  id: Type.String({ 'x-scalar': 'ID' }),
  name: Type.String(),
  transports: Type.Array(Type.String()),
  created_at: Int64(),
  updated_at: Int64(),
  last_used_at: Type.Optional(Int64()),
});
