import { createRequire } from 'node:module';
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

/** An Octicon as inline SVG (decorative unless a label is given). */
export function icon(name: string, options?: { size?: number; label?: string }): Html {
  const octicon = loadOcticons()[name];
  if (!octicon) return trusted('');
  const svgOptions: { width?: number; 'aria-label'?: string } = {};
  if (options?.size) svgOptions.width = options.size;
  if (options?.label) svgOptions['aria-label'] = options.label;
  return trusted(octicon.toSVG(svgOptions));
}
