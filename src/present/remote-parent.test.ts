import { describe, expect, it } from 'vitest';
import { remoteNames, toApiRemoteParent } from './remote-parent.ts';

describe('the remote parent of a fork', () => {
  it('reads owner and name from a Kiln id, with the host (and port) for the owner', () => {
    const parent = {
      actor: 'https://forge.example:8443/repos/ada/kiln',
      cloneUri: 'https://forge.example:8443/ada/kiln.git',
    };
    expect(remoteNames(parent)).toEqual({ login: 'ada@forge.example:8443', name: 'kiln' });
    const api = toApiRemoteParent({ ...parent, name: 'kiln' });
    expect(api.full_name).toBe('ada@forge.example:8443/kiln');
    expect(api.owner.html_url).toBe('https://forge.example:8443/ada');
    expect(api.clone_url).toBe(parent.cloneUri);
    expect(api.html_url).toBe(parent.actor);
  });

  it('names the server for the owner when the id does not hold one', () => {
    const parent = {
      actor: 'https://forgejo.example/api/v1/activitypub/repository-id/7',
      cloneUri: 'https://forgejo.example/ada/kiln.git',
      name: 'kiln',
    };
    expect(remoteNames(parent)).toEqual({ login: 'forgejo.example', name: 'kiln' });
    expect(toApiRemoteParent(parent).full_name).toBe('forgejo.example/kiln');
    expect(toApiRemoteParent(parent).owner.html_url).toBe('https://forgejo.example');
  });

  it('takes /{owner}/{name} when the last segment is the name, and survives bad escapes', () => {
    expect(
      remoteNames({ actor: 'https://git.example/bob/lib', cloneUri: '', name: 'lib' }),
    ).toEqual({ login: 'bob@git.example', name: 'lib' });
    expect(remoteNames({ actor: 'https://git.example/%E0%A4%A/lib', cloneUri: '' }).name).toBe(
      'lib',
    );
  });
});
