import { createRequire } from 'node:module';
import { BoundedMap } from '../../lib/bounded-map.ts';
import { pureCache } from '../../lib/pure-caches.ts';
import { type Html, trusted } from './html.ts';

type Octicon = { toSVG(options?: { width?: number; 'aria-label'?: string }): string };
type Octicons = Record<string, Octicon>;

let octicons: Octicons | undefined;

/**
 * The Octicons, loaded with the first page that shows one: the package parses every icon's paths
 * in every size (a megabyte of JSON), which a server answering only the API and git never needs.
 */
export function loadOcticons(): Octicons {
  octicons ??= createRequire(import.meta.url)('@primer/octicons') as Octicons;
  return octicons;
}

/**
 * Icons as made before, by name, size and label: the package builds each one's SVG from its
 * attributes on every call, and a page shows dozens (a few percent of a page's CPU). Names,
 * sizes and labels come from Kiln's own code; the bound is there should that ever change.
 */
const made = pureCache(
  { name: 'icons', key: 'icon name, size and label', bound: '512 icons' },
  new BoundedMap<string, Html>(512),
);

/** An Octicon as inline SVG (decorative unless a label is given). */
export function icon(name: string, options?: { size?: number; label?: string }): Html {
  const key = `${name}\0${options?.size ?? ''}\0${options?.label ?? ''}`;
  const known = made.get(key);
  if (known !== undefined) return known;
  const svg = svgOf(name, options);
  made.set(key, svg);
  return svg;
}

function svgOf(name: string, options?: { size?: number; label?: string }): Html {
  const octicon = loadOcticons()[name];
  if (!octicon) return trusted('');
  const svgOptions: { width?: number; 'aria-label'?: string } = {};
  if (options?.size) svgOptions.width = options.size;
  if (options?.label) svgOptions['aria-label'] = options.label;
  return trusted(octicon.toSVG(svgOptions));
}
