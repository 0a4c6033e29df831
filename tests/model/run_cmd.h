// run_cmd.h -- run a shell command from a test, capture its output and exit
// code, and fail the test on any sanitizer report from the processes it starts.
//
// The CLI tests run the `spu` binary as a subprocess (under the sanitizer
// suites, build/asan/bin/spu) and often drop its stderr, so a report there
// would go unseen and a crash with a non-zero exit would even look like the
// expected failure. Including this header sets ASAN_OPTIONS / UBSAN_OPTIONS
// for every child (log_path into a private folder; this process's own options
// were read at its start and are unchanged); san_check() turns every report
// file into a test failure that quotes it. run_cmd() calls it; other helpers
// call it after each subprocess.
#ifndef SPU_TESTS_RUN_CMD_H
#define SPU_TESTS_RUN_CMD_H

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace spu_test {

// The folder sanitizer logs of child processes go to (created once).
inline const std::string &san_dir()
{
    static const std::string dir = [] {
        char t[] = "/tmp/spu_san_XXXXXX";
        const char *d = mkdtemp(t);
        std::string s = d ? d : "/tmp";
        auto add = [&](const char *var, const char *extra) {
            const char *old = getenv(var);
            std::string v = std::string(old && *old ? old : "") + (old && *old ? ":" : "") +
                            "log_path=" + s + "/report" + extra;
            setenv(var, v.c_str(), 1);
        };
        add("ASAN_OPTIONS", ":abort_on_error=0");
        add("UBSAN_OPTIONS", ":print_stacktrace=1");
        return s;
    }();
    return dir;
}
static const bool san_env_ready = !san_dir().empty();

// Fail the current test for every sanitizer report written since the last
// call (the report is quoted), then remove the reports.
inline void san_check(const std::string &what)
{
    DIR *d = opendir(san_dir().c_str());
    if (!d)
        return;
    while (struct dirent *e = readdir(d)) {
        std::string n = e->d_name;
        if (n.rfind("report", 0) != 0)
            continue;
        std::string path = san_dir() + "/" + n;
        std::ifstream f(path);
        std::string text((std::istreambuf_iterator<char>(f)), {});
        ADD_FAILURE() << "sanitizer report from a subprocess of: " << what << "\n" << text;
        unlink(path.c_str());
    }
    closedir(d);
}

}  // namespace spu_test

// Runs cmd through the shell; stdout (and stderr unless quiet_stderr) go to
// *out. Returns the exit status, or -1 if the command did not exit normally.
inline int run_cmd(const std::string &cmd, std::string *out = nullptr, bool quiet_stderr = false)
{
    (void)spu_test::san_env_ready;
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
    spu_test::san_check(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
