#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace colossalai::job {

// A list that its copies share until one of them is changed (copy on write): the planner gives
// every node the same environment, and a plan of 100,000 nodes must not hold 100,000 copies of
// it. Reads as a const std::vector<T>; the non-const accessors first copy the elements when
// another copy shares them, so a change to one never shows in another. Copies may be read on
// several threads at once (the count is shared_ptr's); one object is not changed on one thread
// while read on another, as for a std::vector.
template <class T>
class SharedVector {
public:
    using value_type = T;
    using size_type = std::size_t;
    using iterator = typename std::vector<T>::iterator;
    using const_iterator = typename std::vector<T>::const_iterator;

    SharedVector() = default;
    // Implicit, as a std::vector<T> is where one is expected.
    SharedVector(std::vector<T> items)
        : m_items(std::make_shared<std::vector<T>>(std::move(items))) {}
    SharedVector(std::initializer_list<T> items) : SharedVector(std::vector<T>(items)) {}

    const std::vector<T>& get() const { return m_items ? *m_items : none(); }
    operator const std::vector<T>&() const { return get(); }

    const_iterator begin() const { return get().begin(); }
    const_iterator end() const { return get().end(); }
    size_type size() const { return get().size(); }
    bool empty() const { return get().empty(); }
    const T& front() const { return get().front(); }
    const T& back() const { return get().back(); }
    const T& operator[](size_type i) const { return get()[i]; }

    iterator begin() { return own().begin(); }
    iterator end() { return own().end(); }
    T& front() { return own().front(); }
    T& back() { return own().back(); }
    T& operator[](size_type i) { return own()[i]; }
    void push_back(T item) { own().push_back(std::move(item)); }

    // Whether `other` holds the very same elements, not a copy of them (for tests of sharing).
    bool shares_with(const SharedVector& other) const {
        return m_items != nullptr && m_items == other.m_items;
    }

    friend bool operator==(const SharedVector& a, const SharedVector& b) {
        return a.get() == b.get();
    }
    friend bool operator==(const SharedVector& a, const std::vector<T>& b) { return a.get() == b; }

private:
    // The elements, this object's alone: copied first when another copy shares them.
    std::vector<T>& own() {
        if (!m_items) {
            m_items = std::make_shared<std::vector<T>>();
        } else if (m_items.use_count() > 1) {
            m_items = std::make_shared<std::vector<T>>(*m_items);
        }
        return *m_items;
    }

    static const std::vector<T>& none() {
        static const std::vector<T> empty;
        return empty;
    }

    std::shared_ptr<std::vector<T>> m_items; // null: empty
};

} // namespace colossalai::job
