// Byte helpers for the unit tests. They deliberately do not use the code
// under test (nor its byte-order macros): expected values are spelled out
// byte by byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace srpt_test {

using Bytes = std::vector<uint8_t>;

inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = uint8_t(v >> 8);
	p[1] = uint8_t(v);
}

inline void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = uint8_t(v >> (24 - 8 * i));
}

inline void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = uint8_t(v >> (56 - 8 * i));
}

inline uint32_t get_be32(const uint8_t *p)
{
	return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 |
	       uint32_t(p[2]) << 8 | p[3];
}

inline uint64_t get_be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

inline void append_be32(Bytes &b, uint32_t v)
{
	size_t o = b.size();

	b.resize(o + 4);
	put_be32(&b[o], v);
}

inline void append_be64(Bytes &b, uint64_t v)
{
	size_t o = b.size();

	b.resize(o + 8);
	put_be64(&b[o], v);
}

// A direct descriptor (va, key, len) appended in wire order.
inline void append_desc(Bytes &b, uint64_t va, uint32_t key, uint32_t len)
{
	append_be64(b, va);
	append_be32(b, key);
	append_be32(b, len);
}

} // namespace srpt_test
