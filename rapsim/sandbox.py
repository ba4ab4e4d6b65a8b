"""Opening a node's path beneath the daemon's root, race-free.

The daemon must never read or write outside its root directory, even when
a host process changes the tree while a node opens a path (swapping a
directory for a symbolic link between a check and the open).  So nothing
is checked by name and then opened by name: the path is walked component
by component from a descriptor of the root, each directory opened relative
to its parent with ``O_NOFOLLOW`` (``openat``), and every symbolic link met
on the way is read (``readlinkat``) and expanded by the walk itself, so its
target is checked like any other path.  ``..`` pops the walk's own stack of
directory descriptors (never an ``openat(fd, "..")``, which would follow a
directory moved out of the root).  Names are bytes, as the host names files:
a node's path is never decoded, so no two different byte strings can name
the same file.

Outside the root the walk is purely lexical (it touches nothing there): a
path such as ``d/../../root/d/f`` that leaves the root and comes back into
it by name is accepted, one that ends outside is refused with EACCES, and a
symbolic link is never followed outside the root.  docs/syscalls.md,
"Threat model", lists what the daemon defends against.
"""
from __future__ import annotations

import errno
import os
import stat

#: symbolic links one open may expand (the kernel's own limit, MAXSYMLINKS)
MAX_SYMLINKS = 40

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class SandboxError(OSError):
    """A path the sandbox refuses; ``errno`` is what the node receives."""

    def __init__(self, err: int, why: str):
        super().__init__(err, why)


def _parts(path: bytes) -> list[bytes]:
    return [c for c in path.split(b"/") if c and c != b"."]


class Root:
    """A directory descriptor of the root and its real path's components."""

    def __init__(self, path: str):
        real = os.path.realpath(path)
        self.fd = os.open(real, _DIR_FLAGS)
        self.parts = _parts(os.fsencode(real))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def open(self, path: bytes, flags: int, mode: int) -> int:
        """A host descriptor of ``path`` (bytes) opened with ``flags`` beneath
        the root.  Raises OSError (SandboxError EACCES for a path that leaves
        the root, ELOOP for too many links)."""
        todo = _parts(path)[::-1]           # components still to walk, last first
        stack = [self.fd]                   # descriptors from the root down; stack[0] is not ours
        above, detour = (len(self.parts), []) if path.startswith(b"/") else (0, [])
        links = 0
        missing: list[bytes] = []           # below a directory that does not exist
        try:
            while todo:
                name = todo.pop()
                if missing:                 # lexical: "nodir/../f" is "f", as realpath has it
                    if name == b"..":
                        missing.pop()
                    else:
                        missing.append(name)
                    continue
                if above:                   # outside the root: lexical only
                    if name == b"..":
                        if detour:
                            detour.pop()
                        elif above < len(self.parts):
                            above += 1
                    elif not detour and name == self.parts[-above]:
                        above -= 1
                    else:
                        detour.append(name)
                    continue
                if name == b"..":
                    if len(stack) > 1:
                        os.close(stack.pop())
                    elif self.parts:
                        above = 1
                    continue
                last = not todo
                try:
                    if last:
                        fd = os.open(name, flags | os.O_NOFOLLOW, mode, dir_fd=stack[-1])
                    else:
                        fd = os.open(name, _DIR_FLAGS, dir_fd=stack[-1])
                except OSError as e:
                    if e.errno == errno.ENOENT and not last:
                        missing.append(name)
                        continue
                    if e.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                        raise
                    links += 1
                    if links > MAX_SYMLINKS:
                        raise SandboxError(errno.ELOOP, "too many symbolic links") from None
                    try:
                        target = os.readlink(name, dir_fd=stack[-1])
                    except OSError as e2:
                        if e2.errno == errno.EINVAL and not last and _is_dir(name, stack[-1]):
                            todo.append(name)   # a link swapped back for a directory: again
                            continue
                        raise e from None       # not a link: the open's own error
                    todo.extend(_parts(target)[::-1])
                    if target.startswith(b"/"):
                        while len(stack) > 1:
                            os.close(stack.pop())
                        above, detour = len(self.parts), []
                    continue
                if last:
                    return fd
                stack.append(fd)
            if above or detour:
                raise SandboxError(errno.EACCES, "the path leaves the daemon's root")
            if missing:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
            # the path names the root itself (or a directory reached by ..)
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        finally:
            for fd in stack[1:]:
                os.close(fd)


def _is_dir(name: bytes, dir_fd: int) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
