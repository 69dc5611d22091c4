#pragma once
// Runs one coroutine to completion on a test io_context and returns its value;
// whatever else is still pending (scripted servers) is dropped with the context.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <optional>
#include <stdexcept>

namespace attune::test {

template <class T>
T run_coro(boost::asio::io_context& io, boost::asio::awaitable<T> aw) {
    std::optional<T> out;
    std::exception_ptr err;
    boost::asio::co_spawn(io, std::move(aw), [&](std::exception_ptr e, T v) {
        if (e) err = e; else out.emplace(std::move(v));
        io.stop();
    });
    io.restart();
    io.run();
    if (err) std::rethrow_exception(err);
    if (!out) throw std::runtime_error("coroutine did not finish");
    return std::move(*out);
}

inline void run_coro(boost::asio::io_context& io, boost::asio::awaitable<void> aw) {
    std::exception_ptr err;
    bool done = false;
    boost::asio::co_spawn(io, std::move(aw), [&](std::exception_ptr e) {
        err = e;
        done = true;
        io.stop();
    });
    io.restart();
    io.run();
    if (err) std::rethrow_exception(err);
    if (!done) throw std::runtime_error("coroutine did not finish");
}

}  // namespace attune::test
