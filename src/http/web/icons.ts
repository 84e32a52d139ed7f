import { createRequire } from 'node:module';
import { type Html, trusted } from './html.ts';

type Octicon = { toSVG(options?: { width?: number; 'aria-label'?: string }): string };
const octicons = createRequire(import.meta.url)('@primer/octicons') as Record<string, Octicon>;

/** An Octicon as inline SVG (decorative unless a label is given). */
export function icon(name: string, options?: { size?: number; label?: string }): Html {
  const octicon = octicons[name];
  if (!octicon) return trusted('');
  const svgOptions: { width?: number; 'aria-label'?: string } = {};
  if (options?.size) svgOptions.width = options.size;
  if (options?.label) svgOptions['aria-label'] = options.label;
  return trusted(octicon.toSVG(svgOptions));
}
