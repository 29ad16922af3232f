/** The IdP's HTTP routes. */
import type { RawRoute } from '../../core/plugin.js';

export const samlIdpRoutes: RawRoute[] = [];
