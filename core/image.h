#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace striate {

/// Element types of a plane (docs/design.md, Backends: U8 / F32 / complex F32).
enum class PixelType { U8, F32, C32 };

using Complex32 = std::complex<float>;

/// A non-owning view of one plane. Stride is in elements, not bytes.
template <class T>
struct ImageView {
    T* data = nullptr;
    int width = 0;
    int height = 0;
    std::ptrdiff_t stride = 0;

    ImageView() = default;
    ImageView(T* d, int w, int h, std::ptrdiff_t s) : data(d), width(w), height(h), stride(s) {}
    /// A view of mutable data converts to a view of const data.
    template <class U>
    ImageView(const ImageView<U>& o) : data(o.data), width(o.width), height(o.height), stride(o.stride) {}

    T* row(int y) const { return data + static_cast<std::ptrdiff_t>(y) * stride; }
    T& at(int x, int y) const { return row(y)[x]; }
    bool empty() const { return width <= 0 || height <= 0; }
};

/// An owning plane with 64-byte aligned rows (stride rounded up to 16 floats) so SIMD kernels
/// can load whole vectors from the start of every row.
template <class T>
class Image {
public:
    Image() = default;
    Image(int width, int height) { reset(width, height); }

    /// Reallocates only when the size grows; frames of one size reuse the buffer.
    void reset(int width, int height) {
        constexpr std::ptrdiff_t kAlign = 64 / sizeof(T) > 0 ? 64 / sizeof(T) : 1;
        std::ptrdiff_t stride = (static_cast<std::ptrdiff_t>(width) + kAlign - 1) / kAlign * kAlign;
        std::size_t need = static_cast<std::size_t>(stride) * static_cast<std::size_t>(height);
        if (need > capacity_) {
            data_.reset(static_cast<T*>(::operator new[](need * sizeof(T), std::align_val_t(64))));
            capacity_ = need;
        }
        width_ = width;
        height_ = height;
        stride_ = stride;
    }

    /// Frees the storage: an empty plane.
    void release() {
        data_.reset();
        capacity_ = 0;
        width_ = height_ = 0;
        stride_ = 0;
    }
    /// Bytes of storage held.
    std::size_t bytes() const { return capacity_ * sizeof(T); }

    int width() const { return width_; }
    int height() const { return height_; }
    std::ptrdiff_t stride() const { return stride_; }
    T* data() { return data_.get(); }
    const T* data() const { return data_.get(); }
    T* row(int y) { return data_.get() + y * stride_; }
    const T* row(int y) const { return data_.get() + y * stride_; }
    T& at(int x, int y) { return row(y)[x]; }
    const T& at(int x, int y) const { return row(y)[x]; }

    ImageView<T> view() { return {data_.get(), width_, height_, stride_}; }
    ImageView<const T> view() const { return {data_.get(), width_, height_, stride_}; }

private:
    struct AlignedDelete {
        void operator()(T* p) const { ::operator delete[](p, std::align_val_t(64)); }
    };
    std::unique_ptr<T, AlignedDelete> data_;
    std::size_t capacity_ = 0;
    int width_ = 0;
    int height_ = 0;
    std::ptrdiff_t stride_ = 0;
};

/// BT.601 luma of one 8-bit RGB sample, rounded: fixed-point weights 19595, 38470, 7471 over 2^16
/// (0.299, 0.587, 0.114) that sum to 65536, so grey stays exactly grey.
inline std::uint8_t lumaOf(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
    return static_cast<std::uint8_t>((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
}

/// A 16-bit grey sample (GRAY16_LE input) to the nearest 8-bit code, round(v / 257): the
/// backends filter 8-bit luma, and 257 maps 0..255 onto 0..65535 as the 16-bit output does.
inline std::uint8_t code8Of16(std::uint16_t v) { return static_cast<std::uint8_t>((v + 128) / 257); }

/// Copies a view into a new image of the same element type.
template <class T>
Image<std::remove_const_t<T>> copyOf(ImageView<T> v) {
    Image<std::remove_const_t<T>> out(v.width, v.height);
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) out.at(x, y) = v.at(x, y);
    return out;
}

} // namespace striate
