// run_cmd.h -- run a shell command from a test, capture its output and exit code.
#ifndef SPU_TESTS_RUN_CMD_H
#define SPU_TESTS_RUN_CMD_H

#include <cstdio>
#include <string>
#include <sys/wait.h>

// Runs cmd through the shell; stdout (and stderr unless quiet_stderr) go to
// *out. Returns the exit status, or -1 if the command did not exit normally.
inline int run_cmd(const std::string &cmd, std::string *out = nullptr, bool quiet_stderr = false)
{
    FILE *p = popen((cmd + (quiet_stderr ? " 2>/dev/null" : " 2>&1")).c_str(), "r");
    if (!p)
        return -1;
    std::string o;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        o.append(buf, n);
    int st = pclose(p);
    if (out)
        *out = o;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
