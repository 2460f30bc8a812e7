package dev.dynalease.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

/** Requests to the control API of {@code dynalease-fake serve} ({@code /_dynalease/...}), JSON in and out. */
final class ControlClient {
    static final String PREFIX = "/_dynalease/";
    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final String base;
    private final List<BiConsumer<String, String>> listeners = new CopyOnWriteArrayList<>();

    ControlClient(String endpoint) {
        this.base = endpoint + PREFIX;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** Calls {@code listener} with the method and path of every request sent from now on. */
    void onRequest(BiConsumer<String, String> listener) {
        listeners.add(listener);
    }

    /** Sends {@code method PREFIX+path} with {@code body} (JSON text, or null), returns the JSON answer. */
    JsonNode request(String method, String path, String body) {
        for (BiConsumer<String, String> listener : listeners) {
            listener.accept(method, path);
        }
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ControlException(0, "NoAnswer", "the control API at " + base + " did not answer: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ControlException(0, "Interrupted", "interrupted while waiting for " + method + " " + path);
        }
        JsonNode document;
        try {
            document = response.body().isEmpty() ? JSON.nullNode() : JSON.readTree(response.body());
        } catch (IOException e) {
            throw new ControlException(response.statusCode(), "NotJson", response.body());
        }
        if (response.statusCode() >= 400) {
            throw new ControlException(response.statusCode(), document.path("Error").asText(""),
                    document.path("Message").asText(""));
        }
        return document;
    }

    /** Sends {@code value} as JSON. */
    JsonNode requestJson(String method, String path, Object value) {
        try {
            return request(method, path, JSON.writeValueAsString(value));
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + value, e);
        }
    }
}
