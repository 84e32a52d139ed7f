import type { FastifyRequest } from 'fastify';
import type { CodeLocation, TreeItem } from '../../../domain/code/code.types.ts';
import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { MarkdownBase } from '../markdown/links.ts';
import { encodeSegments, markdownBase, repoUrl, srcUrl } from '../paths.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import { blobBox, codeTable, type FileShown } from '../views/blob.ts';
import { breadcrumb, cloneMenu, refSwitcher } from '../views/code-nav.ts';
import { fileTable, latestCommitBar, readmeBox } from '../views/tree.ts';
import { cloneUrlOf, type RepoPageDeps, sshCloneUrlOf } from './repo-context.ts';

/** The row above a listing or file: ref switcher, breadcrumb or ref counts, clone menu. */
async function toolbar(
  deps: RepoPageDeps,
  request: FastifyRequest,
  visible: VisibleRepo,
  location: CodeLocation,
  home: boolean,
): Promise<Html> {
  const { repo } = visible;
  const refs = await deps.services.code.refs(visible);
  const switcher = refSwitcher(repo, location.ref, refs, (ref) => srcUrl(repo, ref, location.path));
  const counts = html`<a class="btn btn-sm btn-invisible" href="${repoUrl(repo)}/branches">${icon('git-branch')} <strong>${refs.branches.length}</strong> ${refs.branches.length === 1 ? 'branch' : 'branches'}</a>
    <a class="btn btn-sm btn-invisible" href="${repoUrl(repo)}/tags">${icon('tag')} <strong>${refs.tags.length}</strong> ${refs.tags.length === 1 ? 'tag' : 'tags'}</a>`;
  return html`<div class="d-flex flex-items-center flex-wrap mb-3 kiln-gap">
    ${switcher}
    ${location.path === '' ? counts : breadcrumb(repo, location.ref.name, location.path)}
    <span class="flex-auto"></span>
    ${home ? cloneMenu(cloneUrlOf(deps, request, visible), `${repoUrl(repo)}/archive/${encodeSegments(location.ref.name)}.zip`, sshCloneUrlOf(deps, request, visible)) : null}
  </div>`;
}

/** A directory: toolbar, latest commit, entries, README. */
export async function treeBody(
  deps: RepoPageDeps,
  renderer: ContentRenderer,
  request: FastifyRequest,
  visible: VisibleRepo,
  location: CodeLocation,
  dir: TreeItem,
  home: boolean,
): Promise<Html> {
  const { code } = deps.services;
  const { repo } = visible;
  const [bar, tip, items] = await Promise.all([
    toolbar(deps, request, visible, location, home),
    code.tip(visible, location),
    code.tree(visible, dir),
  ]);
  const ref = location.ref.name;
  const readme = await readmeShown(
    deps,
    renderer,
    visible,
    items,
    markdownBase(repo, ref, location.path),
  );
  return html`${bar}
    ${fileTable(repo, ref, location.path, items, latestCommitBar(repo, ref, location.path, tip))}
    ${readme}`;
}

/**
 * A directory's README box, if it has a readable README. A markdown README whose render is
 * kept is shown without reading its blob: the home page of a repository with a README of
 * hundreds of KB costs no copy of it, however often it is viewed.
 */
async function readmeShown(
  deps: RepoPageDeps,
  renderer: ContentRenderer,
  visible: VisibleRepo,
  items: readonly TreeItem[],
  base: MarkdownBase,
): Promise<Html | null> {
  const { code } = deps.services;
  const entry = code.readmeOf(items);
  if (!entry) return null;
  const { name, sha } = entry.item;
  const kept = entry.markdown ? renderer.keptMarkdown(sha, base) : undefined;
  if (kept) return readmeBox(name, { markup: kept });
  const readme = await code.readme(visible, entry);
  if (!readme) return null;
  if (!readme.markdown) return readmeBox(name, { text: readme.text });
  return readmeBox(name, { markup: await renderer.markdown(readme.text, base, sha) });
}

/** A file: toolbar with breadcrumb, then its highlighted lines or a notice. */
export async function fileBody(
  deps: RepoPageDeps,
  renderer: ContentRenderer,
  request: FastifyRequest,
  visible: VisibleRepo,
  location: CodeLocation,
  item: TreeItem,
): Promise<Html> {
  const [bar, shown] = await Promise.all([
    toolbar(deps, request, visible, location, false),
    fileShown(deps, renderer, visible, item),
  ]);
  const file = { path: item.path, mode: item.mode, sizeBytes: shown.sizeBytes, lfs: shown.lfs };
  return html`${bar}${blobBox(visible.repo, location.ref.name, file, shown.shown)}`;
}

/**
 * What the page shows of a file, and its size. A view already made of the blob is used
 * without reading the blob: a file of megabytes viewed again costs the page no copy of it.
 */
async function fileShown(
  deps: RepoPageDeps,
  renderer: ContentRenderer,
  visible: VisibleRepo,
  item: TreeItem,
): Promise<{ shown: FileShown; sizeBytes: number; lfs?: boolean }> {
  const kept = item.mode === SYMLINK_MODE ? undefined : renderer.keptCodeView(item.sha, item.name);
  if (kept) return { shown: { kind: 'code', view: kept }, sizeBytes: kept.sizeBytes };
  const file = await deps.services.code.file(visible, item);
  const { content, sizeBytes } = file;
  const lfs = file.lfs !== undefined;
  if (content.kind !== 'text') return { shown: content, sizeBytes, lfs };
  if (file.mode === SYMLINK_MODE)
    return { shown: { kind: 'symlink', target: content.text }, sizeBytes };
  // An LFS file's view is kept under its object's id, never its pointer's: the pointer's kept
  // view would be found first next time and lose what the page says of LFS.
  const view = await renderer.codeView(
    { name: file.name, text: content.text, blobId: file.lfs?.oid ?? file.sha, sizeBytes },
    codeTable,
  );
  return { shown: { kind: 'code', view }, sizeBytes, lfs };
}

/** Git's mode of a symbolic link: its blob is the link's target. */
const SYMLINK_MODE = '120000';
