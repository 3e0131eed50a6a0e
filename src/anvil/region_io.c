/*
 * region_io.c: the POSIX implementation of mc_io, the file-system vtable all
 * region reads and writes go through (so that tests can replace it with one
 * that cuts the write sequence anywhere or fails with ENOSPC).
 *
 * Each operation maps to one system call; EINTR is retried, short reads and
 * writes are completed. fsync_dir opens the folder of a path and fsyncs it,
 * which is what makes a rename or a newly created file durable on Linux.
 *
 * open accepts regular files only. A world folder is data from elsewhere:
 * a FIFO named c.0.0.mcc would block a plain open() (and every read) for
 * ever, a device or a folder would never read as a record. So every open is
 * O_NONBLOCK (opening a FIFO then returns at once), the descriptor is
 * checked with fstat before anything is read, and only a regular file gets
 * its blocking mode back; anything else is MC_IO_ENOTREG. MC_IO_NOFOLLOW
 * maps to O_NOFOLLOW, whose ELOOP is told apart from a real loop of links
 * in the folders by lstat (MC_IO_ESYMLINK).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anvil/region_private.h"
#include "mcchunk/anvil.h"

static int posix_open(void *user, const char *path, int flags, void **file)
{
    (void)user;
    int oflags = (flags & MC_IO_WRITE) ? O_RDWR : O_RDONLY;
    if ((flags & MC_IO_WRITE) && (flags & MC_IO_CREATE)) {
        oflags |= O_CREAT;
        if (flags & MC_IO_EXCLUSIVE)
            oflags |= O_EXCL;
    }
    if ((flags & MC_IO_WRITE) && (flags & MC_IO_TRUNCATE))
        oflags |= O_TRUNC;
    if (flags & MC_IO_NOFOLLOW)
        oflags |= O_NOFOLLOW;
    int fd;
    do
        fd = open(path, oflags | O_CLOEXEC | O_NONBLOCK, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int e = errno ? errno : EIO;
        struct stat ls;
        if (e == ELOOP && (flags & MC_IO_NOFOLLOW) && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode))
            return MC_IO_ESYMLINK;
        return e;
    }
    struct stat st;
    int rc = 0, fl;
    if (fstat(fd, &st) != 0)
        rc = errno ? errno : EIO;
    else if (!S_ISREG(st.st_mode))
        rc = MC_IO_ENOTREG;
    else if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
        rc = errno ? errno : EIO;
    if (rc) {
        close(fd);
        return rc;
    }
    int *box = malloc(sizeof *box);
    if (!box) {
        close(fd);
        return ENOMEM;
    }
    *box = fd;
    *file = box;
    return 0;
}

static int posix_close(void *user, void *file)
{
    (void)user;
    int fd = *(int *)file;
    free(file);
    return close(fd) == 0 ? 0 : errno;
}

static int posix_pread(void *user, void *file, void *buf, size_t n, uint64_t off, size_t *got)
{
    (void)user;
    int fd = *(int *)file;
    size_t done = 0;
    while (done < n) {
        ssize_t k = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            *got = done;
            return errno;
        }
        if (k == 0)
            break;
        done += (size_t)k;
    }
    *got = done;
    return 0;
}

static int posix_pwrite(void *user, void *file, const void *buf, size_t n, uint64_t off)
{
    (void)user;
    int fd = *(int *)file;
    size_t done = 0;
    while (done < n) {
        ssize_t k = pwrite(fd, (const char *)buf + done, n - done, (off_t)(off + done));
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (k == 0)
            return ENOSPC;
        done += (size_t)k;
    }
    return 0;
}

static int posix_fsync(void *user, void *file)
{
    (void)user;
    return fsync(*(int *)file) == 0 ? 0 : errno;
}

static int posix_truncate(void *user, void *file, uint64_t size)
{
    (void)user;
    return ftruncate(*(int *)file, (off_t)size) == 0 ? 0 : errno;
}

static int posix_size(void *user, void *file, uint64_t *size)
{
    (void)user;
    struct stat st;
    if (fstat(*(int *)file, &st) != 0)
        return errno;
    *size = (uint64_t)st.st_size;
    return 0;
}

static int posix_rename(void *user, const char *from, const char *to)
{
    (void)user;
    return rename(from, to) == 0 ? 0 : errno;
}

static int posix_remove(void *user, const char *path)
{
    (void)user;
    return unlink(path) == 0 ? 0 : errno;
}

/* The folder holding `path` ("." for a bare name, "/" for a file at the
 * root) into dir[4096]; 0 or ENAMETOOLONG. */
static int parent_folder(const char *path, char dir[4096])
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        strcpy(dir, ".");
        return 0;
    }
    size_t n = (size_t)(slash - path);
    if (n == 0)
        n = 1;
    if (n >= 4096)
        return ENAMETOOLONG;
    memcpy(dir, path, n);
    dir[n] = 0;
    return 0;
}

static int posix_fsync_dir(void *user, const char *path)
{
    (void)user;
    char dir[4096];
    int perr = parent_folder(path, dir);
    if (perr)
        return perr;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int rc = fsync(fd) == 0 ? 0 : errno;
    close(fd);
    /* Some file systems refuse fsync on folders; that is not a failure. */
    return (rc == EINVAL || rc == EBADF) ? 0 : rc;
}

int mc__list_folder(const char *path, void (*fn)(void *ctx, const char *name), void *ctx)
{
    char dir[4096];
    int perr = parent_folder(path, dir);
    if (perr)
        return perr;
    DIR *d = opendir(dir);
    if (!d)
        return errno ? errno : EIO;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        fn(ctx, e->d_name);
    closedir(d);
    return 0;
}

static const mc_io posix_io = {
    NULL,         posix_open,     posix_close,  posix_pread,  posix_pwrite,  posix_fsync,
    posix_truncate, posix_size,   posix_rename, posix_remove, posix_fsync_dir,
};

const mc_io *mc_io_posix(void)
{
    return &posix_io;
}
