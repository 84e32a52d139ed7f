import { Invalid } from '../errors.ts';
import type { OrgRole, OrgSettings, OrgVisibility } from './org.store.ts';

/**
 * What people type about an organisation, checked before anything is stored: a closed set of
 * roles and visibilities, bounded lengths, and a website that is an http(s) address (it is shown
 * as a link, so `javascript:` and the like never reach a page). Each refusal is Invalid.
 */

/** The settings form's fields, as typed. */
export type OrgSettingsInput = {
  readonly fullName: string;
  readonly description: string;
  readonly website: string;
  readonly visibility: string;
};

/** `public` or `private`. */
export function parseOrgVisibility(value: string): OrgVisibility {
  if (value === 'public' || value === 'private') return value;
  throw new Invalid('visibility must be public or private');
}

/** `owner` or `member`. */
export function parseOrgRole(value: string): OrgRole {
  if (value === 'owner' || value === 'member') return value;
  throw new Invalid('role must be owner or member');
}

function checkedWebsite(value: string): string {
  const website = value.trim();
  if (website === '') return '';
  if (website.length > 255) throw new Invalid('website must be at most 255 characters');
  let url: URL | undefined;
  try {
    url = new URL(website);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Invalid('website must be an http:// or https:// address');
  }
  return website;
}

/** The settings form as stored: trimmed, bounded, the website and visibility checked. */
export function parseOrgSettings(
  input: OrgSettingsInput,
): OrgSettings & { readonly fullName: string; readonly description: string } {
  const fullName = input.fullName.trim();
  const description = input.description.trim();
  if (fullName.length > 100) throw new Invalid('full name must be at most 100 characters');
  if (description.length > 255) throw new Invalid('description must be at most 255 characters');
  return {
    fullName,
    description,
    website: checkedWebsite(input.website),
    visibility: parseOrgVisibility(input.visibility),
  };
}
