/**
 * The organization plugins of the default distribution (plugins/default.ts): organizations,
 * verified domains, home realm discovery and SCIM provisioning. Kept here so that the distribution list names them
 * in one place.
 */
import type { AnyPlugin } from '../../core/plugin.js';
import { orgDiscoveryPlugin } from '../org-discovery/index.js';
import { orgDomainsPlugin } from '../org-domains/index.js';
import { scimPlugin } from '../scim/index.js';
import { organizationsPlugin } from './index.js';

export const organizationPlugins: AnyPlugin[] = [organizationsPlugin, orgDomainsPlugin, orgDiscoveryPlugin, scimPlugin];
