// Fashion-MNIST idx loader: the real files, and corrupt / truncated / wrong
// files that must fail with a reason and no partial data.
#include "spu/runtime.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

std::string tmpdir()
{
    char t[] = "/tmp/spu_rt_loaderXXXXXX";
    const char *d = mkdtemp(t);
    return d ? d : "/tmp";
}

std::vector<uint8_t> idx_bytes(uint8_t ndim, const std::vector<uint32_t> &dims, size_t data_len,
                               uint8_t type = 0x08)
{
    std::vector<uint8_t> b = { 0, 0, type, ndim };
    for (uint32_t d : dims) {
        b.push_back(d >> 24);
        b.push_back(d >> 16);
        b.push_back(d >> 8);
        b.push_back(d);
    }
    for (size_t i = 0; i < data_len; i++)
        b.push_back((uint8_t)(i % 10));
    return b;
}

void write_gz(const std::string &path, const std::vector<uint8_t> &b)
{
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, b.data(), (unsigned)b.size()), (int)b.size());
    gzclose(f);
}

void write_raw(const std::string &path, const std::vector<uint8_t> &b)
{
    FILE *f = fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    fwrite(b.data(), 1, b.size(), f);
    fclose(f);
}

std::vector<uint8_t> read_raw(const std::string &path)
{
    std::vector<uint8_t> b;
    FILE *f = fopen(path.c_str(), "rb");
    if (!f)
        return b;
    int c;
    while ((c = fgetc(f)) != EOF)
        b.push_back((uint8_t)c);
    fclose(f);
    return b;
}

} // namespace

TEST(Loader, RealTestAndTrainSplits)
{
    spu_dataset ds;
    char err[512] = "";
    ASSERT_EQ(spu_fmnist_load(nullptr, "t10k", &ds, err, sizeof err), 0) << err;
    EXPECT_EQ(ds.count, 10000u);
    EXPECT_EQ(ds.rows, 28u);
    EXPECT_EQ(ds.cols, 28u);
    // Fashion-MNIST's test set is balanced: 1000 images per class
    int hist[10] = { 0 };
    for (uint32_t i = 0; i < ds.count; i++)
        hist[ds.labels[i]]++;
    for (int c = 0; c < 10; c++)
        EXPECT_EQ(hist[c], 1000) << "class " << c;
    EXPECT_EQ(ds.labels[0], 9);   // the first test image is an ankle boot
    spu_dataset_free(&ds);
    ASSERT_EQ(spu_fmnist_load(SPU_FMNIST_DEFAULT_DIR, "train", &ds, err, sizeof err), 0) << err;
    EXPECT_EQ(ds.count, 60000u);
    spu_dataset_free(&ds);
}

TEST(Loader, PlainAndGzipReadTheSame)
{
    const std::string d = tmpdir();
    auto b = idx_bytes(3, { 2, 3, 4 }, 24);
    write_raw(d + "/plain", b);
    write_gz(d + "/packed.gz", b);
    uint32_t dims[3];
    uint8_t *p1 = nullptr, *p2 = nullptr;
    char err[256];
    ASSERT_EQ(spu_idx_load((d + "/plain").c_str(), 3, dims, &p1, err, sizeof err), 0) << err;
    EXPECT_EQ(dims[0], 2u);
    EXPECT_EQ(dims[1], 3u);
    EXPECT_EQ(dims[2], 4u);
    ASSERT_EQ(spu_idx_load((d + "/packed.gz").c_str(), 3, dims, &p2, err, sizeof err), 0) << err;
    EXPECT_EQ(0, memcmp(p1, p2, 24));
    EXPECT_EQ(p1[23], 3);
    free(p1);
    free(p2);
}

TEST(Loader, BadMagicIsAnError)
{
    const std::string d = tmpdir();
    uint32_t dims[3];
    uint8_t *p = (uint8_t *)1;
    char err[256] = "";
    write_gz(d + "/f.gz", idx_bytes(3, { 1, 2, 2 }, 4, 0x09));   // type 0x09: signed bytes
    EXPECT_EQ(spu_idx_load((d + "/f.gz").c_str(), 3, dims, &p, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("magic"), std::string::npos) << err;
    EXPECT_EQ(p, nullptr);
    write_gz(d + "/g.gz", idx_bytes(1, { 4 }, 4));                // labels where images expected
    EXPECT_EQ(spu_idx_load((d + "/g.gz").c_str(), 3, dims, &p, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("magic"), std::string::npos) << err;
}

TEST(Loader, TruncatedDataShortHeaderAndTrailingBytes)
{
    const std::string d = tmpdir();
    uint32_t dims[3];
    uint8_t *p = nullptr;
    char err[256] = "";
    write_gz(d + "/short.gz", idx_bytes(3, { 10, 28, 28 }, 5 * 28 * 28));
    EXPECT_EQ(spu_idx_load((d + "/short.gz").c_str(), 3, dims, &p, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("truncated"), std::string::npos) << err;
    EXPECT_EQ(p, nullptr);
    auto h = idx_bytes(3, { 10, 28, 28 }, 0);
    h.resize(9);                                                  // cut inside the dimensions
    write_gz(d + "/hdr.gz", h);
    EXPECT_EQ(spu_idx_load((d + "/hdr.gz").c_str(), 3, dims, &p, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("header"), std::string::npos) << err;
    write_gz(d + "/long.gz", idx_bytes(1, { 4 }, 5));
    EXPECT_EQ(spu_idx_load((d + "/long.gz").c_str(), 1, dims, &p, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("trailing"), std::string::npos) << err;
    write_gz(d + "/empty.gz", {});
    EXPECT_EQ(spu_idx_load((d + "/empty.gz").c_str(), 1, dims, &p, err, sizeof err), SPU_EFORMAT);
}

TEST(Loader, CutAndCorruptGzipOfTheRealFile)
{
    const std::string d = tmpdir();
    auto gz = read_raw(SPU_FMNIST_DEFAULT_DIR "/t10k-labels-idx1-ubyte.gz");
    ASSERT_GT(gz.size(), 1000u);
    uint32_t dims[1];
    uint8_t *p = nullptr;
    char err[256] = "";
    // cut in the middle: the gzip stream ends early
    std::vector<uint8_t> cut(gz.begin(), gz.begin() + gz.size() / 2);
    write_raw(d + "/cut.gz", cut);
    EXPECT_EQ(spu_idx_load((d + "/cut.gz").c_str(), 1, dims, &p, err, sizeof err), SPU_EFORMAT);
    EXPECT_EQ(p, nullptr);
    EXPECT_STRNE(err, "");
    // flip bytes in the middle of the deflate data: CRC or stream error
    std::vector<uint8_t> bad = gz;
    for (size_t i = gz.size() / 2; i < gz.size() / 2 + 16; i++)
        bad[i] ^= 0x5a;
    write_raw(d + "/bad.gz", bad);
    EXPECT_EQ(spu_idx_load((d + "/bad.gz").c_str(), 1, dims, &p, err, sizeof err), SPU_EFORMAT) << err;
    EXPECT_EQ(p, nullptr);
}

TEST(Loader, MissingFileAndMismatchedSplit)
{
    uint32_t dims[1];
    uint8_t *p = nullptr;
    char err[256] = "";
    EXPECT_EQ(spu_idx_load("/nonexistent/x.gz", 1, dims, &p, err, sizeof err), SPU_EIO);
    EXPECT_NE(std::string(err).find("/nonexistent/x.gz"), std::string::npos) << err;
    const std::string d = tmpdir();
    write_gz(d + "/t10k-images-idx3-ubyte.gz", idx_bytes(3, { 3, 28, 28 }, 3 * 784));
    write_gz(d + "/t10k-labels-idx1-ubyte.gz", idx_bytes(1, { 2 }, 2));
    spu_dataset ds;
    EXPECT_EQ(spu_fmnist_load(d.c_str(), "t10k", &ds, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("3 images but 2 labels"), std::string::npos) << err;
    EXPECT_EQ(ds.images, nullptr);
    auto lab = idx_bytes(1, { 3 }, 0);
    lab.insert(lab.end(), { 1, 12, 3 });                         // label 12 is no class
    write_gz(d + "/t10k-labels-idx1-ubyte.gz", lab);
    EXPECT_EQ(spu_fmnist_load(d.c_str(), "t10k", &ds, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("label 12"), std::string::npos) << err;
    write_gz(d + "/t10k-images-idx3-ubyte.gz", idx_bytes(3, { 3, 28, 27 }, 3 * 28 * 27));
    EXPECT_EQ(spu_fmnist_load(d.c_str(), "t10k", &ds, err, sizeof err), SPU_EFORMAT);
    EXPECT_NE(std::string(err).find("28x28"), std::string::npos) << err;
}
