#include "colossalai/util/base64.hpp"

#include <gtest/gtest.h>

namespace colossalai::util {
namespace {

TEST(Base64, EncodesWithPadding) {
    EXPECT_EQ(base64_encode(""), "");
    EXPECT_EQ(base64_encode("f"), "Zg==");
    EXPECT_EQ(base64_encode("fo"), "Zm8=");
    EXPECT_EQ(base64_encode("foo"), "Zm9v");
    EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
    EXPECT_EQ(base64_encode("\xff\xfe"), "//4=");
}

TEST(Base64, DecodesWhatItEncodesAcrossWrappedLines) {
    for (const std::string text : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
        EXPECT_EQ(base64_decode(base64_encode(text)), text);
    }
    EXPECT_EQ(base64_decode("Zm9v\nYmFy\n"), "foobar");
    EXPECT_EQ(base64_decode("Zm9vYg"), "foob"); // padding is optional
}

TEST(Base64, RefusesWhatIsNotBase64) {
    EXPECT_EQ(base64_decode("Zm9v!"), std::nullopt);
    EXPECT_EQ(base64_decode("Z"), std::nullopt);
    EXPECT_EQ(base64_decode("Zg==Zg=="), std::nullopt);
}

} // namespace
} // namespace colossalai::util
