/** `MagicLinkLoginRequest`. */
import { InputObject, OptStr, OptStrList, Str } from '../../core/schema.js';

export const MagicLinkLoginRequest = InputObject('MagicLinkLoginRequest', {
  email: Str({ max: 320, min: 1 }),
  roles: OptStrList({ maxItems: 50, maxLength: 64 }),
  scope: OptStrList({ maxItems: 50, maxLength: 128 }),
  state: OptStr({ max: 1024 }),
  redirect_uri: OptStr({ max: 2048 }),
});
