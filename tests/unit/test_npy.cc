// test_npy.cc -- the .npy reader/writer (host/src/tensor/npy.c): round trips,
// files written by numpy (tests/data/npy/, made with numpy 1.24 np.save and
// numpy.lib.format.write_array), numpy reading our files, and malformed input.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

extern "C" {
#include "spu/npy.h"
#include "spu/spu.h"
}

namespace {

const std::string DATA = SPU_SOURCE_DIR "/tests/data/npy/";

struct TmpDir {
    std::string path;
    TmpDir()
    {
        char t[] = "/tmp/spu_npy_test_XXXXXX";
        EXPECT_NE(mkdtemp(t), nullptr);
        path = t;
    }
    ~TmpDir() { std::string c = "rm -rf '" + path + "'"; (void)!system(c.c_str()); }
    std::string operator/(const std::string &n) const { return path + "/" + n; }
};

std::string read_file(const std::string &p)
{
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Parse from memory; returns rc, error text in *why.
int parse(const std::string &bytes, spu_tensor *t, std::string *why = nullptr)
{
    char err[256];
    int rc = spu_npy_parse(bytes.data(), bytes.size(), t, err, sizeof err);
    if (why) *why = err;
    return rc;
}

// A .npy 1.0 file with the given header dict text (padded like numpy) and data.
std::string make_npy(const std::string &dict, const std::string &data, int major = 1)
{
    std::string h = dict;
    size_t pre = major == 1 ? 10 : 12;
    size_t total = pre + h.size() + 1;
    h += std::string((64 - total % 64) % 64, ' ') + "\n";
    std::string out = std::string("\x93NUMPY", 6);
    out += (char)major;
    out += (char)0;
    size_t n = h.size();
    out += (char)(n & 0xFF);
    out += (char)((n >> 8) & 0xFF);
    if (major != 1) {
        out += (char)((n >> 16) & 0xFF);
        out += (char)((n >> 24) & 0xFF);
    }
    return out + h + data;
}

} // namespace

TEST(Npy, DtypeTable)
{
    EXPECT_EQ(spu_npy_itemsize(SPU_NPY_INT8), 1u);
    EXPECT_EQ(spu_npy_itemsize(SPU_NPY_UINT8), 1u);
    EXPECT_EQ(spu_npy_itemsize(SPU_NPY_INT32), 4u);
    EXPECT_EQ(spu_npy_itemsize(SPU_NPY_FLOAT32), 4u);
    EXPECT_EQ(spu_npy_itemsize(SPU_NPY_FLOAT16), 2u);
    EXPECT_STREQ(spu_npy_descr(SPU_NPY_INT8), "|i1");
    EXPECT_STREQ(spu_npy_descr(SPU_NPY_INT32), "<i4");
    EXPECT_STREQ(spu_npy_dtype_name(SPU_NPY_FLOAT16), "float16");
}

TEST(Npy, RoundTripEveryDtypeAndShape)
{
    TmpDir d;
    std::mt19937 rng(5);
    const std::vector<std::vector<size_t>> shapes = {
        {}, {0}, {1}, {7}, {2, 3}, {0, 3}, {3, 0}, {5, 1, 4}, {1, 1, 1, 1, 1, 1, 1, 2}, {100, 37}};
    for (int dt = 0; dt < SPU_NPY_DTYPE_COUNT; dt++)
        for (const auto &shape : shapes) {
            spu_tensor t;
            ASSERT_EQ(spu_tensor_alloc(&t, (spu_npy_dtype)dt, (int)shape.size(), shape.data()), 0);
            size_t n = spu_tensor_numel(&t), bytes = n * spu_npy_itemsize((spu_npy_dtype)dt);
            for (size_t i = 0; i < bytes; i++) ((uint8_t *)t.data)[i] = (uint8_t)rng();
            std::string p = d / "t.npy";
            ASSERT_EQ(spu_npy_save(p.c_str(), &t), 0);

            std::string f = read_file(p);
            ASSERT_GE(f.size(), 10u);
            EXPECT_EQ(f.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
            size_t hlen = (uint8_t)f[8] | (size_t)(uint8_t)f[9] << 8;
            EXPECT_EQ((10 + hlen) % 64, 0u) << "data must start at a multiple of 64";
            EXPECT_EQ(f[10 + hlen - 1], '\n');
            EXPECT_EQ(f.size(), 10 + hlen + bytes);

            spu_tensor u;
            char err[256];
            ASSERT_EQ(spu_npy_load(p.c_str(), &u, err, sizeof err), 0) << err;
            EXPECT_EQ(u.dtype, t.dtype);
            ASSERT_EQ(u.ndim, t.ndim);
            for (int i = 0; i < t.ndim; i++) EXPECT_EQ(u.shape[i], t.shape[i]);
            EXPECT_EQ(memcmp(u.data, t.data, bytes), 0);
            EXPECT_NE(u.data, nullptr);
            spu_tensor_free(&t);
            spu_tensor_free(&u);
            EXPECT_EQ(u.data, nullptr);
        }
}

TEST(Npy, ScalarAndNumel)
{
    spu_tensor t;
    ASSERT_EQ(spu_tensor_alloc(&t, SPU_NPY_INT32, 0, nullptr), 0);
    EXPECT_EQ(spu_tensor_numel(&t), 1u);
    spu_tensor_free(&t);
    size_t huge[2] = {SIZE_MAX / 2, 4};
    EXPECT_EQ(spu_tensor_alloc(&t, SPU_NPY_INT8, 2, huge), SPU_EINVAL);
    size_t s9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_EQ(spu_tensor_alloc(&t, SPU_NPY_INT8, 9, s9), SPU_EINVAL);
    spu_tensor z = {};
    spu_tensor_free(&z);   // a zeroed tensor is fine
    spu_tensor_free(nullptr);
}

TEST(Npy, ReadsNumpyGoldenFiles)
{
    spu_tensor t;
    char err[256];
    ASSERT_EQ(spu_npy_load((DATA + "i8_2x3.npy").c_str(), &t, err, sizeof err), 0) << err;
    EXPECT_EQ(t.dtype, SPU_NPY_INT8);
    ASSERT_EQ(t.ndim, 2);
    EXPECT_EQ(t.shape[0], 2u);
    EXPECT_EQ(t.shape[1], 3u);
    const int8_t i8[] = {-128, -1, 0, 1, 2, 127};
    EXPECT_EQ(memcmp(t.data, i8, 6), 0);
    spu_tensor_free(&t);

    ASSERT_EQ(spu_npy_load((DATA + "u8_4.npy").c_str(), &t, err, sizeof err), 0) << err;
    EXPECT_EQ(t.dtype, SPU_NPY_UINT8);
    const uint8_t u8[] = {0, 1, 200, 255};
    ASSERT_EQ(t.ndim, 1);
    EXPECT_EQ(t.shape[0], 4u);
    EXPECT_EQ(memcmp(t.data, u8, 4), 0);
    spu_tensor_free(&t);

    ASSERT_EQ(spu_npy_load((DATA + "i32_3x2.npy").c_str(), &t, err, sizeof err), 0) << err;
    EXPECT_EQ(t.dtype, SPU_NPY_INT32);
    const int32_t i32[] = {INT32_MIN, -1, 0, 1, 65536, INT32_MAX};
    EXPECT_EQ(memcmp(t.data, i32, sizeof i32), 0);
    spu_tensor_free(&t);

    ASSERT_EQ(spu_npy_load((DATA + "f32_2x2.npy").c_str(), &t, err, sizeof err), 0) << err;
    EXPECT_EQ(t.dtype, SPU_NPY_FLOAT32);
    const float *f = (const float *)t.data;
    EXPECT_EQ(f[0], 1.5f);
    EXPECT_EQ(f[1], -0.25f);
    EXPECT_EQ(f[2], 3.0e38f);
    EXPECT_EQ(f[3], 1e-40f);
    spu_tensor_free(&t);

    ASSERT_EQ(spu_npy_load((DATA + "f16_3.npy").c_str(), &t, err, sizeof err), 0) << err;
    EXPECT_EQ(t.dtype, SPU_NPY_FLOAT16);
    const uint16_t h[] = {0x3C00, 0xC100, 0x7BFF};   // 1.0, -2.5, 65504
    EXPECT_EQ(memcmp(t.data, h, sizeof h), 0);
    spu_tensor_free(&t);

    ASSERT_EQ(spu_npy_load((DATA + "i32_scalar.npy").c_str(), &t, err, sizeof err), 0) << err;
    EXPECT_EQ(t.ndim, 0);
    EXPECT_EQ(*(int32_t *)t.data, 42);
    spu_tensor_free(&t);

    ASSERT_EQ(spu_npy_load((DATA + "f32_0x3.npy").c_str(), &t, err, sizeof err), 0) << err;
    ASSERT_EQ(t.ndim, 2);
    EXPECT_EQ(t.shape[0], 0u);
    EXPECT_EQ(t.shape[1], 3u);
    EXPECT_EQ(spu_tensor_numel(&t), 0u);
    spu_tensor_free(&t);

    ASSERT_EQ(spu_npy_load((DATA + "i32_v2_2x2.npy").c_str(), &t, err, sizeof err), 0) << err;
    const int32_t v2[] = {7, -7, 1 << 20, -(1 << 20)};
    EXPECT_EQ(memcmp(t.data, v2, sizeof v2), 0);
    spu_tensor_free(&t);

    ASSERT_EQ(spu_npy_load((DATA + "u8_v3_2.npy").c_str(), &t, err, sizeof err), 0) << err;
    EXPECT_EQ(((uint8_t *)t.data)[0], 9);
    EXPECT_EQ(((uint8_t *)t.data)[1], 250);
    spu_tensor_free(&t);
}

TEST(Npy, RejectsNumpyFilesWeDoNotSupport)
{
    spu_tensor t;
    char err[256];
    EXPECT_EQ(spu_npy_load((DATA + "i8_fortran_2x3.npy").c_str(), &t, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(strstr(err, "fortran_order"), nullptr) << err;
    EXPECT_EQ(spu_npy_load((DATA + "i32_bigendian_2.npy").c_str(), &t, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(strstr(err, "big-endian"), nullptr) << err;
    EXPECT_EQ(spu_npy_load((DATA + "f64_2.npy").c_str(), &t, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(strstr(err, "unsupported dtype '<f8'"), nullptr) << err;
    EXPECT_NE(strstr(err, "f64_2.npy"), nullptr) << "the reason names the file: " << err;
    EXPECT_EQ(t.data, nullptr);
    EXPECT_EQ(spu_npy_load("/nonexistent/dir/x.npy", &t, err, sizeof err), SPU_EIO);
}

TEST(Npy, NumpyReadsOurFiles)
{
    const char *py = "/usr/bin/python3";
    if (access(py, X_OK) != 0 || system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0)
        GTEST_SKIP() << "python3 with numpy not installed";
    TmpDir d;
    struct Case { spu_npy_dtype dt; std::vector<size_t> shape; const char *np; };
    std::vector<Case> cases = {{SPU_NPY_INT8, {2, 3}, "int8"}, {SPU_NPY_UINT8, {5}, "uint8"},
                               {SPU_NPY_INT32, {}, "int32"}, {SPU_NPY_FLOAT32, {2, 2, 2}, "float32"},
                               {SPU_NPY_FLOAT16, {0, 4}, "float16"}};
    std::mt19937 rng(11);
    for (size_t k = 0; k < cases.size(); k++) {
        spu_tensor t;
        ASSERT_EQ(spu_tensor_alloc(&t, cases[k].dt, (int)cases[k].shape.size(), cases[k].shape.data()), 0);
        size_t bytes = spu_tensor_numel(&t) * spu_npy_itemsize(cases[k].dt);
        for (size_t i = 0; i < bytes; i++) ((uint8_t *)t.data)[i] = (uint8_t)(rng() & 0x3F);  // finite floats
        std::string p = d / ("c" + std::to_string(k) + ".npy");
        ASSERT_EQ(spu_npy_save(p.c_str(), &t), 0);
        std::string raw(d / "raw"), cmd;
        {
            std::ofstream r(raw, std::ios::binary);
            r.write((const char *)t.data, (std::streamsize)bytes);
        }
        std::string shape = "(";
        for (size_t s : cases[k].shape) shape += std::to_string(s) + ",";
        shape += ")";
        cmd = std::string(py) + " -c \"import numpy as np, sys; a = np.load('" + p + "'); "
              "b = np.fromfile('" + raw + "', dtype=np." + cases[k].np + ").reshape(" + shape + "); "
              "sys.exit(0 if a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes() "
              "and a.flags.c_contiguous else 1)\"";
        EXPECT_EQ(system(cmd.c_str()), 0) << "numpy disagrees on " << p;
        spu_tensor_free(&t);
    }
}

TEST(Npy, TruncatedAtEveryLength)
{
    std::string full = read_file(DATA + "i32_3x2.npy");
    ASSERT_GT(full.size(), 100u);
    for (size_t n = 0; n < full.size(); n++) {
        spu_tensor t;
        std::string why;
        EXPECT_EQ(parse(full.substr(0, n), &t, &why), SPU_EFORMAT) << "prefix of " << n << " bytes";
        EXPECT_FALSE(why.empty());
        EXPECT_EQ(t.data, nullptr);
    }
    spu_tensor t;
    std::string why;
    EXPECT_EQ(parse(full.substr(0, full.size() - 1), &t, &why), SPU_EFORMAT);
    EXPECT_NE(why.find("truncated"), std::string::npos) << why;
    EXPECT_EQ(parse(full, &t, &why), 0) << why;
    spu_tensor_free(&t);
}

TEST(Npy, MalformedHeaders)
{
    const std::string d4(4, '\0');
    struct Case { std::string bytes, why; };
    std::vector<Case> cases = {
        {"\x93NUMPX\x01\x00\x00\x00", "bad magic"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", d4).replace(6, 1, "\x04"),
         "version 4.0"},
        {make_npy("{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }", d4), "fortran_order"},
        {make_npy("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", d4), "big-endian"},
        {make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", d4 + d4), "unsupported dtype"},
        {make_npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", d4 + d4), "unsupported dtype"},
        {make_npy("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", d4), "structured"},
        {make_npy("{'descr': '<i4', 'shape': (1,), }", d4), "missing key 'fortran_order'"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, }", d4), "missing key 'shape'"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': 1}", d4), "unexpected key"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'shape': (1,)}", d4), "twice"},
        {make_npy("['descr', '<i4']", d4), "expected a dict"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,) ", d4), "expected ',' or '}'"},
        {make_npy("{'descr': '<i4', 'fortran_order': Maybe, 'shape': (1,), }", d4), "True or False"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': [1], }", d4), "must be a tuple"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }", d4), "bad dimension"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1 2), }", d4), "expected ',' or ')'"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", d4),
         "more than 8 dimensions"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", d4),
         "overflows"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999999,), }", d4),
         "too large"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), } junk", d4), "junk"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", d4 + "x"), "trailing"},
        {make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", d4), "truncated"},
        {make_npy("{'descr: '<i4', 'fortran_order': False, 'shape': (1,), }", d4), "malformed header"},
    };
    for (const auto &c : cases) {
        spu_tensor t;
        std::string why;
        EXPECT_EQ(parse(c.bytes, &t, &why), SPU_EFORMAT) << c.why;
        EXPECT_NE(why.find(c.why), std::string::npos) << "want '" << c.why << "', got '" << why << "'";
        EXPECT_EQ(t.data, nullptr);
    }
    // the hand-made header itself is fine (so the cases above fail for their own reason)
    spu_tensor t;
    std::string why;
    ASSERT_EQ(parse(make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", d4), &t, &why), 0)
        << why;
    spu_tensor_free(&t);
    ASSERT_EQ(parse(make_npy("{\"descr\": \"|i1\", \"fortran_order\": False, \"shape\": (2, 2)}",
                             std::string(4, '\x7f'), 2), &t, &why), 0) << why;
    EXPECT_EQ(t.dtype, SPU_NPY_INT8);
    spu_tensor_free(&t);
}

TEST(Npy, SaveRejectsBadTensorsAndLeavesNoFile)
{
    TmpDir d;
    spu_tensor t = {};
    t.dtype = (spu_npy_dtype)99;
    std::string p = d / "x.npy";
    EXPECT_EQ(spu_npy_save(p.c_str(), &t), SPU_EINVAL);
    t.dtype = SPU_NPY_INT8;
    t.ndim = 1;
    t.shape[0] = 4;
    t.data = nullptr;
    EXPECT_EQ(spu_npy_save(p.c_str(), &t), SPU_EINVAL);
    struct stat st;
    EXPECT_NE(stat(p.c_str(), &st), 0);
    uint8_t buf[4] = {1, 2, 3, 4};
    t.data = buf;
    EXPECT_EQ(spu_npy_save((d / "no/such/dir.npy").c_str(), &t), SPU_EIO);
}
