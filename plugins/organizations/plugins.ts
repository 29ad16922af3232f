/**
 * The organization plugins of the default distribution (plugins/default.ts): organizations,
 * verified domains and home realm discovery. Kept here so that the distribution list names them
 * in one place.
 */
import type { AnyPlugin } from '../../core/plugin.js';
import { orgDiscoveryPlugin } from '../org-discovery/index.js';
import { orgDomainsPlugin } from '../org-domains/index.js';
import { organizationsPlugin } from './index.js';

export const organizationPlugins: AnyPlugin[] = [organizationsPlugin, orgDomainsPlugin, orgDiscoveryPlugin];
