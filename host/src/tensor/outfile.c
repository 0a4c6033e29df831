/*
 * outfile.c -- careful output files (spu/outfile.h).
 */
#include "spu/outfile.h"
#include "spu/spu.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct spu_outfile {
    int fd;
    int in_place;          /* stdout, a device or a FIFO: written directly */
    int is_stdout;
    int have_mode;         /* replacing an existing file: keep its mode/owner */
    struct stat old;
    char *target;          /* the regular file to create or replace */
    char *named_tmp;       /* fallback temp name (no O_TMPFILE), else NULL */
};

static int why(char *err, size_t cap, int rc, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static void free_o(spu_outfile *o)
{
    free(o->target);
    free(o->named_tmp);
    free(o);
}

int spu_outfile_open(spu_outfile **out, const char *path, char *err, size_t cap)
{
    if (err && cap)
        err[0] = 0;
    if (!out || !path || !*path)
        return why(err, cap, SPU_EINVAL, "empty output path");
    *out = NULL;
    spu_outfile *o = calloc(1, sizeof *o);
    if (!o)
        return SPU_ENOMEM;
    o->fd = -1;
    if (!strcmp(path, "-")) {
        o->fd = STDOUT_FILENO;
        o->in_place = o->is_stdout = 1;
        *out = o;
        return 0;
    }
    struct stat st;
    const char *target = path;
    char real[PATH_MAX];
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(path, real) || stat(real, &st) != 0) {
            free_o(o);
            return why(err, cap, SPU_EINVAL, "%s: a symlink to nothing (refusing to replace it)", path);
        }
        target = real;
    } else if (lstat(path, &st) != 0) {
        if (errno != ENOENT) {
            int e = errno;
            free_o(o);
            return why(err, cap, SPU_EIO, "%s: %s", path, strerror(e));
        }
        memset(&st, 0, sizeof st);
        st.st_mode = S_IFREG;   /* a new regular file */
    } else {
        o->have_mode = 1;
    }
    if (target == real)
        o->have_mode = 1;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        o->fd = open(target, O_WRONLY | O_CLOEXEC | (S_ISCHR(st.st_mode) ? 0 : 0));
        if (o->fd < 0) {
            int e = errno;
            free_o(o);
            return why(err, cap, SPU_EIO, "%s: %s", path, strerror(e));
        }
        o->in_place = 1;
        *out = o;
        return 0;
    }
    if (!S_ISREG(st.st_mode)) {
        const char *kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device"
                         : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
        free_o(o);
        return why(err, cap, SPU_EINVAL, "%s is %s (refusing to write it)", path, kind);
    }
    o->old = st;
    o->target = strdup(target);
    char *dir = o->target ? dir_of(o->target) : NULL;
    if (!dir) {
        free_o(o);
        return SPU_ENOMEM;
    }
    o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);   /* the umask applies */
    if (o->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
        /* no O_TMPFILE here: a named temp next to the target */
        size_t n = strlen(o->target) + 32;
        o->named_tmp = malloc(n);
        if (o->named_tmp) {
            const char *base = strrchr(o->target, '/');
            base = base ? base + 1 : o->target;
            snprintf(o->named_tmp, n, "%s/.%s.spu-XXXXXX", dir, base);
            o->fd = mkstemp(o->named_tmp);
            if (o->fd >= 0 && !o->have_mode) {
                mode_t um = umask(0);
                umask(um);
                fchmod(o->fd, 0666 & ~um);
            }
        }
    }
    int e = errno;
    free(dir);
    if (o->fd < 0) {
        free_o(o);
        return why(err, cap, SPU_EIO, "%s: cannot create a file in its directory: %s", path, strerror(e));
    }
    if (o->have_mode) {
        fchmod(o->fd, o->old.st_mode & 07777);
        if (fchown(o->fd, o->old.st_uid, o->old.st_gid) != 0) {
            /* not permitted: the file becomes ours, with the old mode */
        }
    }
    *out = o;
    return 0;
}

int spu_outfile_check(const char *path, char *err, size_t cap)
{
    if (err && cap)
        err[0] = 0;
    if (!path || !*path)
        return why(err, cap, SPU_EINVAL, "empty output path");
    if (!strcmp(path, "-"))
        return 0;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
            return 0;
        return why(err, cap, SPU_EINVAL, "%s is %s (refusing to write it)", path,
                   S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device"
                   : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file");
    }
    if (lstat(path, &st) == 0)
        return why(err, cap, SPU_EINVAL, "%s: a symlink to nothing (refusing to replace it)", path);
    if (errno != ENOENT)
        return why(err, cap, SPU_EIO, "%s: %s", path, strerror(errno));
    char *dir = dir_of(path);
    if (!dir)
        return SPU_ENOMEM;
    int ok = access(dir, W_OK | X_OK) == 0;
    int e = errno;
    free(dir);
    return ok ? 0 : why(err, cap, SPU_EIO, "%s: cannot create it: %s", path, strerror(e));
}

int spu_outfile_fd(const spu_outfile *o)
{
    return o ? o->fd : -1;
}

int spu_outfile_write(spu_outfile *o, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return SPU_EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int spu_outfile_commit(spu_outfile *o, char *err, size_t cap)
{
    if (err && cap)
        err[0] = 0;
    if (!o)
        return SPU_EINVAL;
    int rc = 0;
    if (o->in_place) {
        if (!o->is_stdout && close(o->fd) != 0)
            rc = why(err, cap, SPU_EIO, "writing: %s", strerror(errno));
        free_o(o);
        return rc;
    }
    if (o->named_tmp) {
        if (close(o->fd) != 0 || rename(o->named_tmp, o->target) != 0) {
            rc = why(err, cap, SPU_EIO, "%s: %s", o->target, strerror(errno));
            unlink(o->named_tmp);
        }
        free_o(o);
        return rc;
    }
    /* give the unnamed file a temporary name, then rename it over the target */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    size_t n = strlen(o->target) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        spu_outfile_abort(o);
        return SPU_ENOMEM;
    }
    char *dir = dir_of(o->target);
    const char *base = strrchr(o->target, '/');
    base = base ? base + 1 : o->target;
    rc = SPU_EIO;
    for (int attempt = 0; attempt < 100 && dir; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(tmp, n, "%s/.%s.spu-%06lx", dir, base,
                 ((unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 8) ^ (unsigned long)attempt * 7919u) & 0xFFFFFFul);
        if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
            rc = 0;
            break;
        }
        if (errno != EEXIST)
            break;
    }
    if (rc) {
        why(err, cap, SPU_EIO, "%s: %s", o->target, strerror(errno));
    } else if (rename(tmp, o->target) != 0) {
        rc = why(err, cap, SPU_EIO, "%s: %s", o->target, strerror(errno));
        unlink(tmp);
    }
    if (close(o->fd) != 0 && !rc)
        rc = why(err, cap, SPU_EIO, "%s: %s", o->target, strerror(errno));
    free(dir);
    free(tmp);
    free_o(o);
    return rc;
}

void spu_outfile_abort(spu_outfile *o)
{
    if (!o)
        return;
    if (!o->is_stdout && o->fd >= 0)
        close(o->fd);
    if (o->named_tmp)
        unlink(o->named_tmp);
    free_o(o);
}
